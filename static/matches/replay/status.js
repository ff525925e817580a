// The replay's team cards and status: each team's score and who leads at the shown
// turn, the match's state in words, and the link back to its own page.

import { scoreCards } from "../board.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { signed } from "../venue/words.js";

// `lead`: the server's word on who leads at the shown turn and the bar's share (at the
// last turn of a match over, the result's: a game may be won otherwise than on points).
export function drawTeams(root, meta, scores, lead) {
  const cards = scoreCards(meta, scores, lead);
  scores.forEach((score, team) => {
    const card = root.querySelector(`[data-team="${team}"]`);
    card.querySelector(".total").textContent = signed(cards.numbers[team]); // "−86", not "-86"
    card.querySelector(".details").textContent = cards.details[team];
    card.classList.toggle("leader", cards.leader === team);
  });
  root.querySelector(".share-a").style.width = `${100 * cards.share}%`;
}

// `match`: its connection, status and verdict, the turns played and the turns it has.
export function drawStatus(root, match) {
  const [kind, words] = statusText(match);
  const badge = root.querySelector("[data-status]");
  badge.textContent = words;
  badge.dataset.kind = kind;
  root.classList.toggle("offline", match.connection === "reconnecting");
  // Translators: the replay's link to the match's own page (its final screen, or the live one)
  root.querySelector("[data-live-link]").textContent = match.status === "finished" ? gettext("match screen")
    : gettext("back to live");
}

function statusText({ connection, status, verdict, played, turns }) {
  if (connection === "reconnecting") return ["reconnecting", gettext("reconnecting…")];
  if (status === "finished") {
    // Translators: the replay's status: the match is over
    if (!verdict) return ["finished", gettext("finished")];
    // Translators: the replay's status, then the result as the server words it, e.g. "finished — Alpha
    // wins by 34 points"
    return ["finished", interpolate(gettext("finished — %(verdict)s"), { verdict })];
  }
  // Translators: the replay's status: the match has not started
  if (status === "upcoming") return ["upcoming", gettext("not started yet")];
  // Translators: the replay's status while the match is played, e.g. "live — 12 of 60 turns played"
  const words = ngettext("live — %(played)s of %(turns)s turn played",
                         "live — %(played)s of %(turns)s turns played", turns);
  return ["live", interpolate(words, { played, turns })];
}
