// The venue's status line and start card: the match's phase (connecting, upcoming,
// live, finished, reconnecting) on the page and its badge, the time to the start, and
// how many watch.

import { formatCountdown } from "../clock.js";
import { setData, setHidden, setText } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";

export function phase(screen, clock) {
  if (screen.connection === "reconnecting") return "reconnecting";
  if (screen.status === "finished" && screen.result) return "finished";
  if (!screen.meta) return "connecting";
  return clock.now() < screen.meta.start_at ? "upcoming" : "live";
}

// The phase shown (while reconnecting, the one before it), the badge and the start
// card; what the countdown needs to say the rest.
export function drawPhase(root, screen, clock) {
  const now = phase(screen, clock);
  const shown = now === "reconnecting" ? screen.phase || "live" : now;
  setData(root, "phase", shown);
  screen.phase = shown;
  const badge = root.querySelector("[data-status]");
  setText(badge, {
    reconnecting: gettext("reconnecting…"),
    connecting: gettext("connecting…"),
    // Translators: the status badge of a match that has not started yet
    upcoming: gettext("upcoming"),
    // Translators: the status badge of a match being played now
    live: behind(screen) ? interpolate(
      // Translators: the status badge of a match shown to the public behind its spectator
      // delay (so that nobody can coach a team from the screen); seconds is a number
      gettext("live · %(seconds)s s behind"), { seconds: behind(screen) }) : gettext("live"),
    // Translators: the status badge of a match that is over
    finished: gettext("finished"),
  }[now]);
  setData(badge, "kind", now);
  const startsIn = screen.meta ? formatCountdown(screen.meta.start_at - clock.now()) : "";
  const start = root.querySelector("[data-start]");
  if (start) {
    setHidden(start, shown !== "upcoming");
    setText(start.querySelector("[data-starts-in]"), startsIn);
    drawBehindNote(start.querySelector("[data-behind-note]"), behind(screen));
  }
  return { now, startsIn, startCard: Boolean(start) };
}

// A match shown behind its spectator delay says so on its start card: the hall knows
// before the start that what it will see happened that long ago.
function drawBehindNote(note, seconds) {
  if (!note) return;
  setHidden(note, !seconds);
  if (!seconds) return;
  // Translators: on the card before a match starts, where the public sees it behind its
  // spectator delay (so that nobody can coach a team from the screen); seconds is a number
  setText(note, interpolate(ngettext("The audience sees this match %(seconds)s second late",
                                     "The audience sees this match %(seconds)s seconds late", seconds),
                            { seconds }));
}

// The seconds this screen shows the match behind (its spectator delay), or 0.
function behind(screen) {
  return screen.meta?.behind_s || 0;
}

export function drawViewers(root, count) {
  const viewers = root.querySelector("[data-viewers]");
  // Translators: how many people watch the match now
  const watching = ngettext("%(count)s watching", "%(count)s watching", count);
  if (viewers) viewers.textContent = interpolate(watching, { count });
}
