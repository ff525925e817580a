// What the venue knows of its match, read from the socket's messages: the parts draw
// from it and never read a message themselves.

import { inLanguage } from "../i18n.js";
import { clockLeft } from "./chess-clocks.js";

export function newScreen() {
  return { meta: null, view: null, history: [], deadline: null, status: "connecting",
           result: null, connection: "connecting", state: null, memory: new Map(),
           lead: null, last: null, panel: null, verdict: null, reasons: null, callouts: null, decisive: null,
           // alternating games: each team's time left at `clocksAt`, and the mover
           clocks: null, clocksAt: null, toMove: null };
}

export function readSnapshot(screen, message) {
  readClocks(screen, message);
  Object.assign(screen, { meta: message.match, history: message.history, state: null,
                          deadline: message.deadline, status: message.status, result: message.result,
                          paused: message.paused || null,
                          lead: message.lead || null,
                          last: message.last || null,
                          panel: inLanguage(message.panels) || message.panel || null,
                          reasons: message.reasons || null,
                          callouts: inLanguage(message.callouts) || null,
                          decisive: message.decisive || null,
                          verdict: inLanguage(message.verdicts) || message.verdict || null });
}

export function readTurn(screen, message) {
  readClocks(screen, message);
  screen.deadline = message.deadline;
  screen.status = message.turn >= screen.meta.turns ? "finished" : "running";
  screen.history.push({ turn: message.turn, scores: message.scores });
  screen.lead = message.lead || null; // the new scores say who leads, until a result does
  screen.last = message.last || null; // what the turn did, as the server marks it
  screen.panel = inLanguage(message.panels) || message.panel || null;
  screen.reasons = message.reasons || null;
  screen.callouts = inLanguage(message.callouts) || null;
}

// A step of a game played step by step: the position after it, with that one step's
// outcome as the team's only one.
export function stepState(message) {
  const outcomes = [[], []];
  outcomes[message.team] = [{ command: message.command, result: message.result }];
  return { ...message.state, outcomes };
}

export function readEnd(screen, message, clock) {
  // the clocks stop where they stand (the loser's at 0 when the time decided)
  if (screen.clocks && screen.meta) {
    screen.clocks = [0, 1].map((team) => clockLeft(screen, clock, team));
    screen.clocksAt = clock.now();
  }
  Object.assign(screen, { result: message.result, status: "finished", deadline: null, toMove: null,
                          lead: message.lead || { team: message.result?.winner ?? null,
                                                  share: screen.lead?.share ?? 0.5 },
                          verdict: inLanguage(message.verdicts) || message.verdict || null,
                          decisive: message.decisive || null });
}

function readClocks(screen, message) {
  screen.clocks = message.clocks ?? null;
  screen.clocksAt = message.server_time ?? null;
  screen.toMove = message.to_move ?? null;
}

// The judges held the match, let it go on or gave it time (a "control" message): the
// pause, the start and deadline as they are now, an alternating game's clocks.
export function readControl(screen, message) {
  readClocks(screen, message);
  screen.paused = message.paused || null;
  screen.deadline = message.deadline;
  if (screen.meta) screen.meta.start_at = message.start_at;
}
