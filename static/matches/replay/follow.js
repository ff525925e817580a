// The live follow of a match still being played: its start by the clock, then its new
// turns, its end and the socket's state from the match's stream, handed to the replay.

import { MatchStream } from "../live.js";

// `replay` is told addTurn(message), finish(message) and connected(connection), and
// showStatus() when the match starts; the stream it returns asks only for what came
// after the page was made.
export function followMatch(replay) {
  if (replay.status === "finished") return null;
  if (replay.status === "upcoming") {
    setTimeout(() => {
      if (replay.status === "upcoming") replay.status = "running";
      replay.showStatus();
    }, Math.max(replay.data.start_at - Date.now(), 0));
  }
  const stream = new MatchStream(replay.data.id, {
    onTurn: (message) => replay.addTurn(message),
    onEnd: (message) => replay.finish(message),
    onStatus: (connection) => replay.connected(connection),
  });
  stream.turn = replay.latest; // only what came after the page was made
  stream.connect();
  return stream;
}
