// What if (docs/api.md, "What if"): from the shown turn, each team plays as it did, a
// built-in level, or nothing, and either may send other actions in the next turn; the
// server plays it by the rules (POST …/whatif) and the replay shows the variation in
// place of the match, its link in the address (`whatif=`) to send to a teammate, until
// "Back to the match".

import { setHidden, setText } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";

export function startWhatIf(replay) {
  const find = (selector) => replay.find(selector);
  const form = find("[data-whatif]");
  find("[data-whatif-open]").addEventListener("click", () => {
    if (replay.original) replay.exitVariation();
    setHidden(form, !form.hidden);
    describeBranch(replay);
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const ask = askOf(replay, form);
    if (ask) await play(replay, ask);
  });
  find("[data-variation-back]").addEventListener("click", () => {
    replay.exitVariation();
    const url = new URL(location.href);
    url.searchParams.delete("whatif");
    history.replaceState(history.state, "", url);
  });
  const linked = new URLSearchParams(location.search).get("whatif");
  if (linked) {
    try {
      play(replay, JSON.parse(fromBase64Url(linked)));
    } catch {
      // a link cut short: the match as it was
    }
  }
}

export function describeBranch(replay) {
  setText(replay.find("[data-whatif-from]"),
          interpolate(gettext("From turn %(turn)s: what each team does then."), { turn: replay.turn }));
}

// The request of the form: the branch, the next turn's actions a team typed (null: its
// choice), and each team's choice for the turns after.
function askOf(replay, form) {
  const problem = replay.find("[data-whatif-problem]");
  setHidden(problem, true);
  const count = Math.max(1, Number(form.querySelector("[data-whatif-turns]").value) || 1);
  const next = [null, null];
  for (const team of [0, 1]) {
    const text = form.querySelector(`[data-whatif-actions="${team}"]`).value.trim();
    if (!text) continue;
    try {
      next[team] = JSON.parse(text);
    } catch {
      setText(problem, interpolate(gettext("Team %(team)s's actions are not JSON."), { team: "AB"[team] }));
      setHidden(problem, false);
      return null;
    }
  }
  const teams = {};
  for (const team of [0, 1]) {
    const choice = form.querySelector(`[data-whatif-choice="${team}"]`).value;
    if (choice) teams[String(team)] = choice;
  }
  const given = next.some((actions) => actions !== null) ? [next] : [];
  return { from_turn: replay.turn, turns: given, play_on: { turns: count - given.length, teams } };
}

async function play(replay, ask) {
  const problem = replay.find("[data-whatif-problem]");
  const response = await fetch(`/api/matches/${replay.data.id}/whatif`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(ask),
  });
  const answer = await response.json();
  if (!response.ok) {
    setText(problem, answer.detail || answer.error);
    setHidden(problem, false);
    setHidden(replay.find("[data-whatif]"), false);
    return;
  }
  setHidden(replay.find("[data-whatif]"), true);
  replay.enterVariation(ask.from_turn, answer);
  const url = new URL(location.href);
  url.searchParams.set("whatif", toBase64Url(JSON.stringify(ask)));
  history.replaceState(history.state, "", url);
  const words = interpolate(gettext("What if, from turn %(turn)s: %(count)s turns not played"),
                            { turn: ask.from_turn, count: answer.states.length });
  setText(replay.find("[data-variation-words]"), words);
  replay.find("[data-variation-link]").href = url.href;
  setHidden(replay.find("[data-variation]"), false);
}

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}
