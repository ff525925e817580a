// The venue's last-turn panel: how many actions failed, and the failed ones listed (in
// games of one command or move a turn, every one), as many whole lines as fit.

import { RESULT_MARK, actor, conflictWords, describeAction, failureCounts, gameRules,
         invalidWords } from "../board.js";
import { gettext, interpolate, ngettext, reasonSaid } from "../i18n.js";
import { words } from "./words.js";

export function drawFailures(root, screen, state) {
  const box = root.querySelector("[data-failures]");
  if (!box) return;
  box.hidden = state.turn === 0; // nothing to say before the first turn
  const { game } = screen.meta;
  drawHeadline(box.querySelector(".summary"), state);
  const listed = listedOutcomes(game, state, screen.panel);
  box.dataset.lines = listed.length; // the side keeps room for one of them (side.js)
  const list = box.querySelector("ul");
  list.replaceChildren(...listed.map((outcome) => outcomeItem(game, outcome, screen.reasons)));
  fitList(box, list, listed.length);
}

// The room left to the failures changes with the cards above them (a name on two
// lines, a tray): list again what fits.
export function refitFailures(root, screen) {
  const box = root.querySelector("[data-failures]");
  if (!box || !window.ResizeObserver) return;
  let height = -1;
  new ResizeObserver(() => {
    if (box.clientHeight === height || !screen.state) return;
    height = box.clientHeight;
    drawFailures(root, screen, screen.state);
  }).observe(box);
}

// "⚡ 7 conflicts  ✕ 2 invalid" (the counts that are not zero), or "✓ no failed actions".
function drawHeadline(box, state) {
  if (!box) return;
  if (state.turn === 0) {
    box.replaceChildren(words("quiet", gettext("No turn played yet")));
    return;
  }
  const { conflicts, invalid } = failureCounts(state);
  const parts = [];
  if (conflicts) parts.push(words("conflict", `${RESULT_MARK.conflict} ${conflictWords(conflicts)}`));
  if (invalid) parts.push(words("invalid", `${RESULT_MARK.invalid} ${invalidWords(invalid)}`));
  if (!conflicts && !invalid) parts.push(words("ok", RESULT_MARK.ok + " " + gettext("no failed actions")));
  box.replaceChildren(...parts);
  box.title = interpolate(gettext("Turn %(turn)s"), { turn: state.turn });
}

// The last turn's failed actions; in games where a team plays one command or move a
// turn, every one of them. Each with the server's words for it where the game gives them.
function listedOutcomes(game, state, panel) {
  const all = (state.outcomes || []).flatMap((outcomes, team) => outcomes.map((outcome, index) => ({
    ...outcome, team, words: panel?.moves?.[team]?.[index] ?? null })));
  return gameRules(game).agents ? all.filter((outcome) => outcome.result !== "ok") : all;
}

// e.g. "✕ A3 move (4, 7): target is an opponent wall", "✓ A piece u · 5 squares · 45 54 55".
function outcomeItem(game, outcome, reasons) {
  const item = document.createElement("li");
  item.className = `${outcome.result} team-${"ab"[outcome.team]}`;
  const who = `${gameRules(game).agents ? "AB"[outcome.team] : ""}${actor(game, outcome.team, outcome)}`;
  const said = outcome.words || describeAction(game, outcome);
  item.append(words("mark", RESULT_MARK[outcome.result] || "?"), words("who", who), ` ${said}`);
  if (outcome.reason) {
    // the rules' reason (English data) in the page's words, as the server said it
    // Translators: after an action in a list of failed ones, why it failed
    item.append(words("why", interpolate(gettext(": %(reason)s"),
                                         { reason: reasonSaid(outcome.reason, reasons) })));
  }
  return item;
}

// Whole lines only: as many reasons as fit, then "+k more" for the rest, on a line of
// its own where there is room for it, else beside the headline (so that a box with room
// for one reason shows that reason, not "+k more" over an empty box).
function fitList(box, list, total) {
  const items = [...list.children];
  const overflows = () => box.scrollHeight > box.clientHeight + 1;
  if (!overflows()) return;
  const more = words("more", "");
  const line = document.createElement("li");
  line.className = "more";
  for (let shown = items.length - 1; shown >= 0; shown -= 1) {
    items[shown].remove();
    more.textContent = line.textContent = moreLines(total - shown);
    if (shown > 0) {
      list.append(line);
      if (!overflows()) return;
      line.remove();
    }
    box.querySelector(".summary")?.append(more);
    if (!overflows() || shown === 0) return;
    more.remove();
  }
}

// "+3 more": the lines of the list that do not fit.
function moreLines(count) {
  // Translators: how many more lines of the list there are that do not fit, e.g. "+3 more"
  return interpolate(ngettext("+%(count)s more", "+%(count)s more", count), { count });
}
