// A team's report on its own match (GET /api/matches/{id}/report, docs/api.md "The
// rehearsal report"): the token is asked once and kept in this tab (the play page's
// key, so that a team that played here is not asked again), sent only to this server.
// A practice server's game (its programs bring no token) is shown without one.

import { reasonSaid } from "./i18n.js";

export function startReport(root) {
  const matchId = root.dataset.match;
  const key = `play-token:${matchId}`;
  const find = (name) => root.querySelector(`[data-${name}]`);
  find("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = find("token-input").value.trim();
    if (token) show(root, find, matchId, token, key);
  });
  const kept = sessionStorage.getItem(key);
  if (kept) {
    show(root, find, matchId, kept, key);
  } else {
    unasked(find, matchId);
  }
}

async function unasked(find, matchId) {
  // without a token: answered only for a practice server's game
  let answer;
  try {
    answer = await fetch(`/api/matches/${matchId}/report`);
  } catch {
    return;
  }
  if (answer.ok) present(find, await answer.json());
}

async function show(root, find, matchId, token, key) {
  const refusal = find("token-refusal");
  let answer;
  try {
    answer = await fetch(`/api/matches/${matchId}/report`,
                         { headers: { Authorization: `Bearer ${token}` } });
  } catch {
    refusal.textContent = gettext("The server could not be reached: try again in a moment.");
    refusal.hidden = false;
    return;
  }
  if (!answer.ok) {
    sessionStorage.removeItem(key);
    refusal.textContent = interpolate(gettext(
      "This token is not the token of a team in match %(match)s: check the token your team was given for this match."),
      { match: matchId }, true);
    refusal.hidden = false;
    return;
  }
  sessionStorage.setItem(key, token);
  refusal.hidden = true;
  present(find, await answer.json());
}

function present(find, report) {
  find("token-form").hidden = true;
  find("report").hidden = false;
  summary(find("summary"), report);
  turns(find("turns"), report);
}

function summary(list, report) {
  const s = report.summary;
  const refused = Object.entries(s.refused).map(([code, count]) => `${code} × ${count}`);
  const latency = s.latency_ms
    ? interpolate(gettext("%(p50)s ms typical, %(worst)s ms at worst"),
                  { p50: s.latency_ms.p50, worst: s.latency_ms.max }, true)
    : "—";
  const result = s.won === null ? (report.status === "finished" ? gettext("a draw") : gettext("not over yet"))
    : (s.won ? gettext("won") : gettext("lost"));
  const rows = [
    [gettext("Team"), report.name],
    [gettext("Requests"), interpolate(gettext("%(count)s sent, %(accepted)s accepted"),
                                      { count: s.requests, accepted: s.accepted }, true)
      + (s.outputs ? ` · ${interpolate(ngettext("%(count)s output kept", "%(count)s outputs kept", s.outputs),
                                       { count: s.outputs }, true)}` : "")],
    [gettext("Refused"), refused.length ? refused.join(", ") : "—"],
    [gettext("From the step's opening"), latency],
    [gettext("Invalid actions"), String(s.invalid_actions)],
    [gettext("Steps missed"), String(s.steps_missed)],
    [gettext("Result"), result],
  ];
  list.replaceChildren(...rows.flatMap(([term, value]) => {
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = term;
    dd.textContent = value;
    return [dt, dd];
  }));
}

function turns(body, report) {
  body.replaceChildren(...report.turns.map((turn) => {
    const row = document.createElement("tr");
    if (turn.missed) row.className = "missed";
    const number = document.createElement("td");
    number.textContent = turn.turn;
    const requests = document.createElement("td");
    if (!turn.requests.length) {
      requests.textContent = turn.missed ? gettext("nothing sent: the step was missed") : "—";
    }
    for (const request of turn.requests) {
      const line = document.createElement("div");
      // 202: actions or a command; 200: a line of a game's own protocol (CHaser's
      // name, `gr`, `#`), read as the protocol wants, or the program's printed output
      // (the server says which: `kind`); anything else was refused
      const words = request.status === 202
        ? interpolate(gettext("accepted after %(ms)s ms%(counted)s"),
                      { ms: request.latency_ms, counted: request.counted ? ` · ${gettext("counted")}` : "" }, true)
        : request.kind === "output" ? gettext("its program's output, kept for the replay")
          : request.status === 200 ? gettext("a protocol line, read")
            : `${request.status} ${request.error}: ${request.detail}`;
      line.textContent = words;
      if (request.status === 200) line.className = "protocol";
      else if (request.status !== 202) line.className = "refused";
      requests.append(line);
    }
    const invalid = document.createElement("td");
    invalid.textContent = turn.invalid.length
      ? turn.invalid.map((one) => one.agent === null || one.agent === undefined
        ? reasonSaid(one.reason, report.reasons)  // a game of one player, no agents
        : interpolate(gettext("agent %(agent)s: %(reason)s"), {
          agent: one.agent, reason: reasonSaid(one.reason, report.reasons) }, true)).join("; ")
      : "—";
    row.append(number, requests, invalid);
    return row;
  }));
}
