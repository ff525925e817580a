// The replay's controls: ⏮ ◀ ▶/⏸ ▶ ⏭, the slider, the turn field, the speed, the keys
// and their overlay, wired to a player (the replay: moveTo, step, toggle, setSpeed,
// turn and latest), and drawn as it stands.

import { onChartPick } from "../chart.js";
import { gettext } from "../i18n.js";

const NOT_TEXT = new Set(["range", "button", "checkbox", "radio", "submit", "reset"]);

export function bindControls(root, player) {
  const find = (selector) => root.querySelector(selector);
  const actions = { first: () => player.moveTo(0), back: () => player.step(-1), play: () => player.toggle(),
                    forward: () => player.step(1), last: () => player.moveTo(player.latest),
                    keys: () => toggleKeys(root) };
  for (const button of root.querySelectorAll("[data-action]")) {
    button.addEventListener("click", () => actions[button.dataset.action]());
  }
  find("[data-slider]").addEventListener("input", (event) => player.moveTo(Number(event.target.value)));
  bindTurnField(find("[data-turn-field]"), player);
  bindSpeed(find("[data-speed]"), player);
  onChartPick(find("svg.chart"), (turn) => player.moveTo(turn));
  find("[data-move-list]").addEventListener("click", (event) => {
    const line = event.target.closest("[data-line-turn]");
    if (line) player.moveTo(Number(line.dataset.lineTurn));
  });
  find("[data-keys]").addEventListener("click", (event) => {
    if (event.target === event.currentTarget) toggleKeys(root, false);
  });
  document.addEventListener("keydown", (event) => onKey(root, player, event));
}

// The slider, the turn field and the picture's link at the shown turn.
export function drawPosition(root, { turn, latest, span }) {
  const slider = root.querySelector("[data-slider]");
  slider.max = span;
  slider.value = turn;
  slider.disabled = latest === 0;
  slider.style.setProperty("--played", `${(100 * latest) / span}%`);
  const field = root.querySelector("[data-turn-field]");
  field.max = latest;
  if (document.activeElement !== field) field.value = turn;
  root.querySelector("[data-png-link]").search = `?turn=${turn}`;
}

export function drawPlayState(root, playing, speed) {
  root.classList.toggle("playing", playing);
  const button = root.querySelector('[data-action="play"]');
  const label = playing
    // Translators: the replay's play button while it plays: pause the replay
    ? gettext("Pause")
    // Translators: the replay's play button while it is paused: play the turns one after another
    : gettext("Play");
  button.setAttribute("aria-label", label);
  root.querySelector("[data-events]").textContent = playing ? `▶ ${speedName(speed)}`
    // Translators: the replay is paused (not playing its turns)
    : gettext("paused");
}

function bindTurnField(field, player) {
  const commit = () => {
    const text = field.value.trim();
    if (/^\d+$/.test(text)) player.moveTo(Number(text));
    field.value = player.turn;
  };
  field.addEventListener("change", commit);
  field.addEventListener("keydown", (event) => {
    if (event.key === "Enter") commit();
    if (event.key === "Escape") {
      field.value = player.turn;
      field.blur();
    }
  });
}

function bindSpeed(select, player) {
  // Keys are ignored while the speed has the focus, so a pick with the pointer hands
  // the focus back; choosing with the keyboard keeps it where the user put it.
  let pointer = false;
  select.addEventListener("pointerdown", () => { pointer = true; });
  select.addEventListener("change", () => {
    player.setSpeed(Number(select.value));
    if (pointer) select.blur();
    pointer = false;
  });
}

function onKey(root, player, event) {
  if (event.ctrlKey || event.metaKey || event.altKey || isTextField(event.target)) return;
  const act = {
    ArrowLeft: () => player.step(-1), ArrowRight: () => player.step(1),
    Home: () => player.moveTo(0), End: () => player.moveTo(player.latest),
    " ": () => player.toggle(), "?": () => toggleKeys(root), Escape: () => toggleKeys(root, false),
  }[event.key];
  if (!act) return;
  event.preventDefault(); // also keeps a focused button from being clicked by Space
  if (event.repeat && (event.key === " " || event.key === "?")) return;
  act();
}

function toggleKeys(root, visible) {
  const overlay = root.querySelector("[data-keys]");
  overlay.hidden = !(visible ?? overlay.hidden);
}

function isTextField(node) {
  if (!(node instanceof HTMLElement)) return false;
  if (node.isContentEditable || node.tagName === "SELECT" || node.tagName === "TEXTAREA") return true;
  return node.tagName === "INPUT" && !NOT_TEXT.has(node.type);
}

function speedName(speed) {
  return { 0.25: "¼×", 0.5: "½×" }[speed] || `${speed}×`;
}
