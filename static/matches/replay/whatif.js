// What if (docs/api.md, "What if"): from the shown turn, each team plays as it did, a
// built-in level, or nothing, and either may send other actions in the next turn; the
// server plays it by the rules (POST …/whatif) and the replay shows the variation in
// place of the match, its link in the address (`whatif=`) to send to a teammate, until
// "Back to the match". In a game whose agents are given actions on the board (the play
// page's input: Kakomimasu, Procon 2020), a team's next actions are set by clicking its
// agent, then its target, on the replay's board; in the others, typed as JSON.

import { gameRules } from "../board.js";
import { setHidden, setText } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";

export function startWhatIf(replay) {
  const find = (selector) => replay.find(selector);
  const form = find("[data-whatif]");
  find("[data-whatif-open]").addEventListener("click", () => {
    if (replay.original) replay.exitVariation();
    setHidden(form, !form.hidden);
    describeBranch(replay);
    drawPicks(replay);
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
  startPicking(replay, form);
  const linked = new URLSearchParams(location.search).get("whatif");
  if (linked) {
    try {
      play(replay, JSON.parse(fromBase64Url(linked)));
    } catch {
      // a link cut short: the match as it was
    }
  }
}

// --- setting a team's actions on the board -----------------------------------------

function startPicking(replay, form) {
  const rules = gameRules(replay.data.game);
  const play = rules.play;
  const buttons = form.querySelectorAll("[data-whatif-pick]");
  if (play?.kind !== "agents") {
    for (const button of buttons) setHidden(button, true);
    return;
  }
  replay.picks = { team: null, agent: null, turn: null, plans: [new Map(), new Map()], play, rules };
  for (const button of buttons) {
    button.addEventListener("click", () => {
      const team = Number(button.dataset.whatifPick);
      const picks = replay.picks;
      picks.team = picks.team === team ? null : team;
      picks.agent = null; // the first click on one of its agents chooses it
      drawPicks(replay);
    });
  }
  for (const box of form.querySelectorAll("[data-whatif-actions]")) {
    box.addEventListener("input", () => { // typed by hand: the board shows what was typed
      const plans = replay.picks.plans[Number(box.dataset.whatifActions)];
      plans.clear();
      try {
        for (const action of JSON.parse(box.value || "[]")) plans.set(action.agent, action);
      } catch {
        // not JSON (yet): nothing drawn; "Play it" says what is wrong
      }
      drawPicks(replay);
    });
  }
  replay.find(".board").addEventListener("click", (event) => {
    const cell = event.target.closest?.(".cell");
    if (cell && replay.picks.team !== null && !replay.original && !form.hidden) {
      pickCell(replay, form, [Number(cell.dataset.x), Number(cell.dataset.y)]);
    }
  });
}

function pickCell(replay, form, [x, y]) {
  const picks = replay.picks;
  const state = replay.states[replay.turn];
  const team = picks.team;
  const agents = state.agents[team] || [];
  const here = agents.findIndex((at) => at && at[0] === x && at[1] === y);
  const problem = replay.find("[data-whatif-problem]");
  setHidden(problem, true);
  if (here >= 0 && here !== picks.agent) {
    picks.agent = here;
  } else if (picks.agent !== null) {
    const plans = picks.plans[team];
    const { action, problem: why } = picks.play.plan(state, team, picks.agent, [x, y],
                                                     plans.get(picks.agent));
    if (why) {
      setText(problem, why);
      setHidden(problem, false);
    } else {
      plans.set(picks.agent, action);
      const next = agents.findIndex((_, agent) => !plans.has(agent));
      picks.agent = next >= 0 ? next : picks.agent;
      // the agents not set do what they did in the match's next turn (not nothing)
      const played = (replay.states[replay.turn + 1]?.outcomes || [[], []])[team] || [];
      const others = played.filter((outcome) => Number.isInteger(outcome.agent) && !plans.has(outcome.agent))
        .map(({ result, reason, ...action }) => action);
      const sorted = [...plans.values(), ...others].sort((a, b) => a.agent - b.agent);
      form.querySelector(`[data-whatif-actions="${team}"]`).value = JSON.stringify(sorted);
    }
  }
  drawPicks(replay);
}

// The actions set on the board, each on its target cell (the agent's number and the
// action's mark, as on the play page), and the agent being given one. A new branch
// turn forgets them.
export function drawPicks(replay) {
  const picks = replay.picks;
  if (!picks) return;
  const root = replay.find(".board");
  for (const old of root.querySelectorAll(".plan")) old.remove();
  for (const cell of root.querySelectorAll("[data-selected]")) delete cell.dataset.selected;
  if (picks.turn !== replay.turn) {
    picks.turn = replay.turn;
    picks.plans.forEach((plans) => plans.clear());
    for (const box of replay.root.querySelectorAll("[data-whatif-actions]")) box.value = "";
  }
  for (const button of replay.root.querySelectorAll("[data-whatif-pick]")) {
    button.setAttribute("aria-pressed", String(Number(button.dataset.whatifPick) === picks.team));
  }
  if (replay.original || replay.find("[data-whatif]").hidden) return;
  const state = replay.states[replay.turn];
  const width = replay.data.board.width;
  picks.plans.forEach((plans, team) => {
    const agents = state.agents[team] || [];
    for (const [agent, action] of plans) {
      const at = action.type === "stay" ? agents[agent] : picks.rules.target(action, agents);
      if (!at) continue;
      const mark = document.createElement("span");
      mark.className = `plan plan-${action.type} plan-team-${"ab"[team]}`;
      mark.textContent = `${agent}${picks.play.marks[action.type] || ""}`;
      replay.view.cells[at[1] * width + at[0]]?.append(mark);
    }
  });
  const chosen = picks.team !== null && picks.agent !== null
    ? (state.agents[picks.team] || [])[picks.agent] : null;
  if (chosen) replay.view.cells[chosen[1] * width + chosen[0]].dataset.selected = "";
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
