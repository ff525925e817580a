// The venue's words on the match as a whole: the title line (which game of a
// several-game match, and how the match stands) and the result card at the end.

import { setData, setHidden, setText } from "../dom.js";
import { gettext, inLanguage, interpolate } from "../i18n.js";
import { signed, versus } from "./words.js";

export function drawTitle(root, match) {
  const title = root.querySelector("[data-title]");
  if (title) title.textContent = (inLanguage(match.titles) || match.title) + gameOfMatch(match.game_of_match, match.teams);
}

export function drawResult(root, screen) {
  const over = screen.status === "finished" && screen.result && screen.meta && screen.state;
  markDecisive(screen, over ? screen.decisive : null);
  const banner = root.querySelector("[data-result]");
  if (!banner) return;
  setHidden(banner, !over);
  if (!over) return;
  keepVerdictRoom(banner);
  const { winner } = screen.result;
  setData(banner, "winner", winner === null || winner === undefined ? "none" : String(winner));
  setText(banner.querySelector(".verdict"), screen.verdict || "");
  if (screen.result.decided_by === "void") {
    // a void match has no final score: it counts nowhere (the verdict gives the reason)
    // Translators: a match the judges voided, where it stopped, e.g. "stopped at turn 12"
    setText(banner.querySelector(".final"), interpolate(gettext("stopped at turn %(turn)s"),
                                                       { turn: screen.state.turn }));
    return;
  }
  const numbers = screen.state.scores.map((score) => score[screen.meta.headline]);
  // Translators: the final score, e.g. "final 12 – 7 · turn 30"
  setText(banner.querySelector(".final"), interpolate(gettext("final %(score)s · turn %(turn)s"),
                                                     { score: versus(signed(numbers[0]), signed(numbers[1])),
                                                       turn: screen.state.turn }));
}

// At the end the board takes the height the verdict above it leaves (venue.css's
// --verdict-room): the card's own height, measured whenever it changes, since a long
// verdict ("… is captured (a block was put on it) · … wins the match 2–0") takes three
// lines where a short one takes one. A guess left a tall board running off the screen.
const roomKept = new WeakSet();

function keepVerdictRoom(banner) {
  const stage = banner.closest(".stage");
  if (!stage || roomKept.has(banner) || !window.ResizeObserver) return;
  roomKept.add(banner);
  new ResizeObserver(() => {
    if (banner.hidden) return;
    const room = banner.offsetHeight + parseFloat(getComputedStyle(banner).marginBottom || "0");
    stage.style.setProperty("--verdict-room", `${Math.ceil(room)}px`);
  }).observe(banner);
}

// At the end, the cells that decided it (the rules say which: the blocks round a boxed-in
// player), ringed on the board; cells marked before and no longer are cleared.
function markDecisive(screen, cells) {
  const view = screen.view;
  if (!view) return;
  const wanted = new Set((cells || []).map(([x, y]) => y * view.board.width + x));
  for (const index of screen.decisiveShown || []) {
    if (!wanted.has(index)) view.cells[index]?.classList.remove("decisive");
  }
  for (const index of wanted) view.cells[index]?.classList.add("decisive");
  screen.decisiveShown = wanted;
}

// Which game of a several-game match this is, and how the match stands: the games
// won so far in a match of wins (" · game 2 of 3 (Alpha 1 – 0 Beta)"), the
// earlier games' scores in a match of totals (" · game 2 of 2 (game 1: 253 – 74)");
// "" for a one-game match.
function gameOfMatch(games, teams) {
  if (!games) return "";
  // Translators: which game of a several-game match this is, e.g. "game 2 of 3"
  const which = " · " + interpolate(gettext("game %(game)s of %(games)s"),
                                    { game: games.game, games: games.of });
  if (games.by === "wins") {
    const [a, b] = games.wins;
    return a + b ? `${which} (${teams[0].name} ${versus(a, b)} ${teams[1].name})` : which;
  }
  if (games.game === 1) return which;
  const earlier = games.headlines.slice(0, games.game - 1)
    .map(([a, b], index) => interpolate(gettext("game %(game)s: %(score)s"),
                                        { game: index + 1, score: versus(signed(a), signed(b)) }));
  return `${which} (${earlier.join(", ")})`;
}
