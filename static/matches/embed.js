// An embedded board at one turn (/matches/<id>/embed?turn=N): drawn once from the
// page's data, as the live tile draws it.

import { createBoard, drawState, remember, scoreCards } from "./board.js";
import { gettext, interpolate } from "./i18n.js";
import { drawNames } from "./venue/cards.js";
import { signed } from "./venue/words.js";

export function showTurn(tile, data) {
  const { match, state } = data;
  const view = createBoard(tile.querySelector(".board"), match.board, match.game);
  const memory = new Map();
  remember(match.game, memory, data, 0); // what the turns up to this one did, as the server says
  drawState(view, state, { memory, last: data.last }); // the turn's marks, as the server says
  // who leads is the server's word (`lead`, as the rules say of that turn's scores)
  const cards = scoreCards(match, state.scores, data.lead);
  match.teams.forEach((team) => {
    const card = tile.querySelector(`[data-team="${team.index}"]`);
    card.querySelector(".total").textContent = signed(cards.numbers[team.index]);
    card.classList.toggle("leader", cards.leader === team.index);
  });
  // each name and number fitted to its card, as the live tile fits them
  drawNames(tile, match.teams);
  addEventListener("resize", () => drawNames(tile, match.teams));
  // a game on chess clocks ends by its rules: the turn alone
  tile.querySelector("[data-turn]").textContent = match.clock_ms == null ? `${state.turn} / ${match.turns}`
    : interpolate(gettext("turn %(turn)s"), { turn: state.turn });
  const badge = tile.querySelector("[data-status]");
  // Translators: the badge of a board shown as it stood at one turn
  badge.textContent = interpolate(gettext("after turn %(turn)s"), { turn: state.turn });
  badge.dataset.kind = "finished";
}
