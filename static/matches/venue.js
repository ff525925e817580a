// The venue screen: one match, live. Also used, compact, by the wall of screens (where a
// part of the venue's side panel is missing, it is not drawn).
//
// Who leads, the bar between the cards, each card's words, who moves next, the trays of
// pieces and the end in words come from the server, which asks the game's rules
// (`lead`, `panel`, `verdict`: docs/live-protocol.md); this module names no game. A game
// played in alternating turns on chess clocks (its match has `clock_ms`) shows each
// team's clock on its card and whose move it is instead of the turn's countdown.
//
// This module puts the screen together: the socket's messages are read into one
// `screen` (venue/screen.js), and each part of the page draws from it (venue/*.js).

import { createBoard, drawLegend, drawState, remember, turnSpan } from "./board.js";
import { drawChart } from "./chart.js";
import { ServerClock } from "./clock.js";
import { MatchStream } from "./live.js";
import { drawCallouts } from "./venue/callouts.js";
import { drawNames, drawTeams } from "./venue/cards.js";
import { drawChessClocks } from "./venue/chess-clocks.js";
import { drawFailures, refitFailures } from "./venue/failures.js";
import { followNextGame, heardNextGame } from "./venue/next-game.js";
import { drawNotices } from "./venue/notices.js";
import { drawResult, drawTitle } from "./venue/result.js";
import { newScreen, readControl, readEnd, readSnapshot, readTurn, stepState } from "./venue/screen.js";
import { keepSideOnScreen } from "./venue/side.js";
import { drawPhase, drawViewers } from "./venue/status.js";
import { drawCountdown, drawTurn } from "./venue/strip.js";

// `followGames`: the venue page's own screen moves on to its match's next game once its
// game is over (venue/next-game.js); a tile of the wall or the TV stays.
export function startVenue(root, matchId, { followGames = false } = {}) {
  const clock = new ServerClock();
  const screen = newScreen();

  function apply(state) {
    drawState(screen.view, state, { memory: screen.memory, last: screen.last });
    screen.state = state;
    const { headline } = drawTeams(root, screen, state.scores);
    drawTurn(root, screen, state.turn);
    const chart = root.querySelector("svg.chart");
    const span = turnSpan(screen.meta.game, screen.meta.turns, screen.history.at(-1)?.turn || 0,
                          screen.status === "finished");
    if (chart) drawChart(chart, screen.history, span, { key: headline, current: state.turn });
    drawStatus(); // first: the phase says which panels show, and the failures fit what is left
    drawFailures(root, screen, state);
    drawCallouts(root.querySelector(".board"), screen.callouts, state.turn);
  }

  function drawStatus() {
    drawCountdown(root, screen, clock, drawPhase(root, screen, clock));
    drawChessClocks(root, screen, clock);
    drawResult(root, screen);
  }

  const stream = new MatchStream(matchId, {
    onSnapshot(message) {
      clock.update(message.server_time);
      readSnapshot(screen, message);
      screen.view = createBoard(root.querySelector(".board"), message.match.board, message.match.game);
      remember(message.match.game, screen.memory, message, 0); // what all turns so far did
      const legend = root.querySelector("[data-board-legend]");
      if (legend) drawLegend(legend, message.match.game);
      drawNames(root, screen.meta.teams);
      drawTitle(root, message.match);
      drawNotices(root, message.notices);
      apply(message.state);
      if (followGames && screen.status === "finished") followNextGame(matchId, screen);
    },
    onTurn(message) {
      clock.update(message.server_time);
      readTurn(screen, message);
      remember(screen.meta.game, screen.memory, message, message.turn);
      apply(message);
    },
    // A step of a game played step by step (CHaser over TCP): the position after it,
    // with that one step's marks as the server says (a walk's arrow, the cells a look or
    // search read), and the step in words where the countdown would be.
    onStep(message) {
      const state = stepState(message);
      drawState(screen.view, state, { last: message.last });
      screen.step = message;
      drawTeams(root, screen, message.state.scores);
      drawStatus();
    },
    // The judges held the match, let it go on or gave it time: the countdown says so
    // (and stops), or runs to the moved deadline.
    onControl(message) {
      clock.update(message.server_time);
      readControl(screen, message);
      drawStatus();
    },
    onEnd(message) {
      readEnd(screen, message, clock);
      if (screen.state) drawTeams(root, screen, screen.state.scores);
      drawStatus();
      if (followGames) followNextGame(matchId, screen);
    },
    onNotices(notices) {
      drawNotices(root, notices);
    },
    onViewers(count) {
      drawViewers(root, count);
    },
    onNextGame(games) {
      if (followGames) heardNextGame(screen, games);
    },
    onStatus(connection) {
      screen.connection = connection;
      root.classList.toggle("offline", connection === "reconnecting");
      drawStatus();
    },
  });
  stream.connect();
  setInterval(drawStatus, 100);
  let resized = null;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(() => {
      if (screen.meta) drawNames(root, screen.meta.teams);
      if (screen.state) drawFailures(root, screen, screen.state);
    }, 150);
  });
  refitFailures(root, screen);
  keepSideOnScreen(root);
  return stream;
}
