// The board editor (board_editor.html; docs/boards.md): the board drawn as the screens
// draw it, edited with the game's tools (its module's `editor`: the tools, an empty
// board, what a tool does to a cell), each change mirrored if asked (a start cell's
// mirror is the other team's) and sent to the server, whose rules answer with the
// position before turn 1 and their notes (its symmetry, what each side can reach), or
// with what is wrong. A random board comes from the rules too; Save keeps it by name.

import { createBoard, drawState, gameRules } from "./board.js";
import { setHidden, setText } from "./dom.js";
import { gettext, interpolate } from "./i18n.js";

const MIRRORS = {
  "left-right": (w, h, x, y) => [w - 1 - x, y],
  "top-bottom": (w, h, x, y) => [x, h - 1 - y],
  point: (w, h, x, y) => [w - 1 - x, h - 1 - y],
};
const CHECK_DELAY_MS = 120; // changes closer together are checked once

export function startEditor(root, start, csrf) {
  const game = start.game;
  const tools = gameRules(game).editor;
  const find = (name) => root.querySelector(`[data-${name}]`);
  const page = { board: start.board, view: null, checking: null, asked: 0 };

  const post = (path, body) => fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf }, body: JSON.stringify(body),
  });

  function draw(board, state) {
    page.view = createBoard(find("board"), board, game);
    if (state) drawState(page.view, state);
    find("width").value = board.width;
    find("height").value = board.height;
  }

  function show(answer) {
    page.board = answer.board;
    draw(answer.board, answer.state);
    const notes = find("notes");
    notes.replaceChildren(...answer.notes.map((note) => Object.assign(document.createElement("li"), { textContent: note })));
    setHidden(find("problem"), true);
  }

  function refuse(words) {
    setText(find("problem"), words);
    setHidden(find("problem"), false);
  }

  async function check() {
    const asked = (page.asked += 1);
    const response = await post("check", { board: page.board, agents: hint("agents") });
    const answer = await response.json();
    if (asked !== page.asked) return; // a later change is being checked
    if (response.ok) show(answer);
    else refuse(answer.error);
  }

  function changed() {
    page.asked += 1; // an answer on its way is of a board before this change: dropped
    draw(page.board, null); // at once, as the editor has it; the rules' answer follows
    clearTimeout(page.checking);
    page.checking = setTimeout(check, CHECK_DELAY_MS);
  }

  // --- the tools ------------------------------------------------------------------
  const box = find("tools");
  tools.tools.forEach((tool, index) => {
    const label = document.createElement("label");
    const radio = Object.assign(document.createElement("input"), { type: "radio", name: "tool", value: tool.id, checked: index === 0 });
    label.append(radio, ` ${tool.label}`);
    box.append(label);
  });
  const chosen = () => tools.tools.find((tool) => tool.id === box.querySelector("input:checked").value);
  const value = find("value");
  function toolChanged() {
    const tool = chosen();
    setHidden(find("value-box"), !tool.value);
    if (tool.value) Object.assign(value, { min: tool.value.min, max: tool.value.max, value: tool.value.initial });
  }
  box.addEventListener("change", toolChanged);
  toolChanged();

  function paint(x, y) {
    const tool = chosen();
    const amount = Math.max(tool.value?.min ?? 0, Math.min(tool.value?.max ?? 0, Number(value.value) || 0));
    const team = tool.team ?? 0;
    tools.apply(page.board, tool.id, x, y, amount, team);
    const mirror = MIRRORS[find("mirror").value];
    if (mirror) {
      const [px, py] = mirror(page.board.width, page.board.height, x, y);
      if (px !== x || py !== y) tools.apply(page.board, tool.id, px, py, amount, 1 - team);
    }
    changed();
  }

  let painting = false;
  let last = "";
  const cellAt = (event) => event.target.closest?.(".cell");
  find("board").addEventListener("pointerdown", (event) => {
    const cell = cellAt(event);
    if (!cell) return;
    event.preventDefault();
    painting = true;
    last = `${cell.dataset.x},${cell.dataset.y}`;
    paint(Number(cell.dataset.x), Number(cell.dataset.y));
  });
  find("board").addEventListener("pointerover", (event) => {
    const cell = cellAt(event);
    if (!painting || !cell || `${cell.dataset.x},${cell.dataset.y}` === last) return;
    last = `${cell.dataset.x},${cell.dataset.y}`;
    paint(Number(cell.dataset.x), Number(cell.dataset.y));
  });
  window.addEventListener("pointerup", () => { painting = false; });

  // --- size, random, hints --------------------------------------------------------
  find("blank").addEventListener("click", () => {
    const size = (input) => Math.max(1, Math.min(40, Number(input.value) || 1));
    page.board = tools.blank(size(find("width")), size(find("height")));
    changed();
  });
  find("random").addEventListener("click", async () => {
    const seed = find("seed").value;
    const response = await fetch(`random${seed ? `?seed=${encodeURIComponent(seed)}` : ""}`);
    const answer = await response.json();
    if (!response.ok) return refuse(answer.error);
    page.asked += 1; // an older check's answer must not draw over it
    for (const [key, number] of Object.entries(answer.hints)) if (number) find(key).value = number;
    show(answer);
  });
  for (const key of ["agents", "turns"]) {
    const label = root.querySelector(`[data-hint="${key}"]`);
    setHidden(label, !tools.hints.includes(key));
    if (start.hints[key]) find(key).value = start.hints[key];
  }
  find("agents").addEventListener("change", changed);
  function hint(key) {
    const number = Number(find(key).value);
    return tools.hints.includes(key) && Number.isInteger(number) && number > 0 ? number : null;
  }

  // --- save -----------------------------------------------------------------------
  find("name").value = start.name || "";
  find("save").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = find("name").value.trim();
    const response = await post("save", { name, board: page.board, agents: hint("agents"), turns: hint("turns") });
    const answer = await response.json();
    if (!response.ok) {
      setHidden(find("saved"), true);
      return refuse(answer.error);
    }
    setHidden(find("problem"), true);
    const saved = find("saved");
    const link = Object.assign(document.createElement("a"), { href: answer.file, textContent: gettext("export its file") });
    saved.replaceChildren(interpolate(gettext("Saved as %(name)s: play it by this name."), { name: answer.name }), " ", link);
    setHidden(saved, false);
    history.replaceState(null, "", `?name=${encodeURIComponent(answer.name)}`);
  });

  show(start);
}
