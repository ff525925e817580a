// The board zoomed and moved like a map, where the page is one column (a phone): it
// opens fitted to the width; two fingers pinch it larger or smaller, one finger (or the
// mouse) drags it once it is larger, a double tap zooms in on a point or back to the
// whole board, and the +, − and "whole board" buttons under it do the same. The board
// keeps its place in the page (the page scrolls; only the board's picture moves inside
// its own box), so nothing on the page becomes a second scrolling box.

import { setHidden } from "../dom.js";

const STEP = 1.6; // one press of + or −
const READABLE_CELL = 48; // px: zoomed in fully, a cell (its value about 19 px) at least this
const TAP_MS = 300; // a double tap: two taps this close in time…
const TAP_PX = 30; // …and in place
const DRAG_PX = 6; // a pointer that moved this far drags: its click is not a click on a cell

export function startZoom(root) {
  const stage = root.querySelector(".stage");
  const zoom = new BoardZoom(stage, stage.querySelector(".board"), stage.querySelector("[data-zoom-buttons]"));
  // a board of another size (the window turned, widened): whole again
  new ResizeObserver(() => zoom.fit()).observe(zoom.board);
  return zoom;
}

export class BoardZoom {
  constructor(stage, board, buttons) {
    Object.assign(this, { stage, board, buttons, scale: 1, x: 0, y: 0 });
    this.pointers = new Map(); // the pointers down on the board: where each is now
    this.gesture = null; // where a drag or a pinch began
    this.lastTap = null;
    this.dragged = false;
    this.touchedAt = -Infinity;
    const frame = board.parentElement; // the board's box, which clips it zoomed
    frame.addEventListener("pointerdown", (event) => this.down(event));
    frame.addEventListener("pointermove", (event) => this.move(event));
    for (const name of ["pointerup", "pointercancel"]) {
      frame.addEventListener(name, (event) => this.up(event));
    }
    // (a finger's double tap is told by its taps: the browser's own dblclick may follow)
    frame.addEventListener("dblclick", (event) => this.enabled && performance.now() - this.touchedAt > 1000
      && this.toggleAt(event.clientX, event.clientY));
    // a drag is not a click on the cell it ended on (what if's picks)
    frame.addEventListener("click", (event) => {
      if (this.dragged) event.stopPropagation();
      this.dragged = false;
    }, true);
    buttons.addEventListener("click", (event) => this.pressed(event.target.closest("[data-zoom]")));
    this.draw();
  }

  // Only where its buttons show (the one-column page): elsewhere the board fits its place.
  get enabled() {
    return getComputedStyle(this.buttons).display !== "none";
  }

  // The most it zooms: a cell of READABLE_CELL px, and at least twice the whole board.
  get most() {
    const cell = this.board.querySelector(".cell")?.offsetWidth || READABLE_CELL;
    return Math.max(2, READABLE_CELL / cell);
  }

  // The board's top left corner on the screen, unzoomed and unmoved.
  origin() {
    const box = this.board.getBoundingClientRect();
    return [box.left - this.x, box.top - this.y];
  }

  fit() {
    this.set(1, 0, 0);
  }

  // Zooms to `scale`, the point (clientX, clientY) staying where it is on the screen.
  zoomAt(scale, clientX, clientY) {
    const [left, top] = this.origin();
    const next = Math.min(Math.max(scale, 1), this.most);
    const [px, py] = [(clientX - left - this.x) / this.scale, (clientY - top - this.y) / this.scale];
    this.set(next, clientX - left - px * next, clientY - top - py * next);
  }

  zoomAtCentre(scale) {
    const box = this.board.parentElement.getBoundingClientRect();
    this.zoomAt(scale, box.left + box.width / 2, box.top + box.height / 2);
  }

  toggleAt(clientX, clientY) {
    if (this.scale > 1) this.fit();
    else this.zoomAt(this.most, clientX, clientY);
  }

  pressed(button) {
    if (!button) return;
    const how = button.dataset.zoom;
    if (how === "in") this.zoomAtCentre(this.scale * STEP);
    else if (how === "out") this.zoomAtCentre(this.scale / STEP);
    else this.fit();
  }

  // The board stays over its whole box: moved no further than its edges.
  set(scale, x, y) {
    const width = this.board.offsetWidth, height = this.board.offsetHeight;
    this.scale = this.enabled ? scale : 1;
    this.x = Math.min(0, Math.max(width - width * this.scale, x));
    this.y = Math.min(0, Math.max(height - height * this.scale, y));
    this.draw();
  }

  draw() {
    const zoomed = this.scale > 1;
    this.board.style.transform = zoomed ? `translate(${this.x}px, ${this.y}px) scale(${this.scale})` : "";
    this.stage.classList.toggle("zoomed", zoomed);
    const buttons = this.buttons;
    buttons.querySelector('[data-zoom="in"]').disabled = this.scale >= this.most - 0.01;
    for (const button of buttons.querySelectorAll('[data-zoom="out"], [data-zoom="fit"]')) {
      button.disabled = !zoomed;
    }
    setHidden(buttons.querySelector("[data-zoom-level]"), !zoomed);
    buttons.querySelector("[data-zoom-level]").textContent = `${Math.round(this.scale * 10) / 10}×`;
  }

  // --- fingers and the mouse ---------------------------------------------------------

  down(event) {
    if (!this.enabled) return;
    if (event.pointerType === "mouse" && event.button !== 0) return;
    if (event.pointerType === "touch") this.touchedAt = performance.now();
    if (!this.pointers.size) this.dragged = false; // a new gesture
    this.pointers.set(event.pointerId, [event.clientX, event.clientY]);
    this.begin();
    if (this.pointers.size === 2 || this.scale > 1) this.board.parentElement.setPointerCapture?.(event.pointerId);
  }

  // A gesture starts afresh whenever a finger comes or goes: one drags, two pinch.
  begin() {
    const points = [...this.pointers.values()];
    this.gesture = { points, scale: this.scale, x: this.x, y: this.y, at: performance.now() };
  }

  move(event) {
    if (!this.pointers.has(event.pointerId) || !this.gesture) return;
    this.pointers.set(event.pointerId, [event.clientX, event.clientY]);
    const now = [...this.pointers.values()];
    const { points, scale, x, y } = this.gesture;
    if (Math.hypot(now[0][0] - points[0][0], now[0][1] - points[0][1]) > DRAG_PX) this.dragged = true;
    if (now.length >= 2 && points.length >= 2) {
      const [before, after] = [points, now].map(([a, b]) => Math.hypot(a[0] - b[0], a[1] - b[1]));
      const [mid0, mid] = [points, now].map(([a, b]) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);
      this.set(scale, x, y); // from the gesture's start, so rounding never accumulates
      this.zoomAt(scale * (after / Math.max(before, 1)), mid0[0], mid0[1]);
      this.set(this.scale, this.x + mid[0] - mid0[0], this.y + mid[1] - mid0[1]);
      this.dragged = true;
    } else if (now.length === 1 && scale > 1) {
      this.set(scale, x + now[0][0] - points[0][0], y + now[0][1] - points[0][1]);
    }
  }

  up(event) {
    if (!this.pointers.has(event.pointerId)) return;
    const tap = this.pointers.size === 1 && !this.dragged && event.type === "pointerup"
      && performance.now() - this.gesture.at < TAP_MS;
    this.pointers.delete(event.pointerId);
    this.begin();
    if (tap && event.pointerType === "touch") this.tapped(event.clientX, event.clientY);
  }

  tapped(clientX, clientY) {
    const last = this.lastTap;
    this.lastTap = { at: performance.now(), clientX, clientY };
    if (!last || performance.now() - last.at > TAP_MS
        || Math.hypot(clientX - last.clientX, clientY - last.clientY) > TAP_PX) return;
    this.lastTap = null;
    this.toggleAt(clientX, clientY);
  }
}
