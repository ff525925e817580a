// Server time as every screen in the hall should see it: the local clock plus an
// offset measured from the server_time of recent messages. A message is never
// received before it was sent, so the largest sample is the closest to the truth.

import { gettext, interpolate } from "./i18n.js";

export class ServerClock {
  constructor() {
    this.samples = [];
  }

  update(serverTime) {
    if (typeof serverTime !== "number") return;
    this.samples.push(serverTime - Date.now());
    if (this.samples.length > 12) this.samples.shift();
  }

  get offset() {
    return this.samples.length ? Math.max(...this.samples) : 0;
  }

  now() {
    return Date.now() + this.offset;
  }
}

export function formatCountdown(ms) {
  if (ms == null) return "";
  const seconds = Math.max(ms, 0) / 1000;
  if (seconds >= 60) {
    const whole = Math.ceil(seconds);
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  }
  // Translators: seconds left, e.g. "2.4 s"
  return interpolate(gettext("%(seconds)s s"), { seconds: seconds.toFixed(1) });
}
