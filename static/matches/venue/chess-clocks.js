// The chess clocks of a game played in alternating turns (its match has `clock_ms`):
// each team's time left on its card, the mover's running down between the server's
// readings.

import { setData, setHidden, setText } from "../dom.js";
import { gettext, interpolate } from "../i18n.js";

const CLOCK_WARNING_MS = 30000; // a chess clock under this turns the warning colour

export function alternating(screen) {
  return Boolean(screen.meta && screen.meta.clock_ms != null);
}

// Each team's time left: the mover's runs down from the server's reading (never
// before the start), the other's stands still; at 0 it waits for the server's `end`.
export function clockLeft(screen, clock, team) {
  const left = screen.clocks[team];
  if (team !== screen.toMove || screen.status === "finished") return left;
  if (screen.paused) return left; // held by the judges: no clock runs
  const since = Math.max(screen.clocksAt ?? clock.now(), screen.meta.start_at);
  return Math.max(0, left - Math.max(0, clock.now() - since));
}

export function drawChessClocks(root, screen, clock) {
  const shown = alternating(screen) && Array.isArray(screen.clocks);
  const timeUp = screen.status === "finished" && screen.result?.decided_by === "time"
    ? 1 - screen.result.winner : null;
  for (const team of [0, 1]) {
    const node = root.querySelector(`[data-team="${team}"] [data-chess-clock]`);
    if (!node) continue;
    setHidden(node, !shown);
    if (!shown) continue;
    const left = timeUp === team ? 0 : clockLeft(screen, clock, team);
    const text = formatClock(left);
    if (node.textContent !== text) {
      node.textContent = text;
      node.setAttribute("aria-label", interpolate(gettext("%(name)s: %(time)s left"),
                                                  { name: screen.meta.teams[team].name, time: text }));
    }
    const running = team === screen.toMove && screen.status !== "finished";
    const low = left < CLOCK_WARNING_MS && screen.status !== "finished";
    setData(node, "state", timeUp === team ? "out" : low ? "low" : "ok");
    node.classList.toggle("running", running);
    const card = root.querySelector(`[data-team="${team}"]`);
    card.classList.toggle("has-clock", true);
    card.classList.toggle("out-of-time", timeUp === team);
    const chip = card.querySelector(".to-move-chip");
    if (chip && timeUp === team) {
      setHidden(chip, false);
      setText(chip, gettext("out of time"));
    }
  }
}

// A chess clock: m:ss, whole seconds rounded up, so it reads 0:00 only when the time is up.
function formatClock(ms) {
  const seconds = Math.ceil(Math.max(ms ?? 0, 0) / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
