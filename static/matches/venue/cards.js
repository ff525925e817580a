// The venue's team cards: each team's name, score and words, who leads and the bar
// between the cards, who moves next and each team's tray of pieces.

import { scoreCards } from "../board.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { pieceSvg } from "../piece.js";
import { signed } from "./words.js";

const NAME_SMALLEST = 0.6; // of the name's own size, before the short code takes its place

export function drawTeams(root, screen, scores) {
  // The server's word on who leads and the bar (the result decides at the end), else
  // the scores' as this page reads them.
  const cards = scoreCards(screen.meta.game, scores, screen.lead ? screen.lead.team : undefined);
  const share = screen.lead ? screen.lead.share : cards.share;
  const words = screen.panel?.words;
  scores.forEach((score, team) => {
    const card = root.querySelector(`[data-team="${team}"]`);
    setNumber(card.querySelector(".total"), cards.numbers[team]);
    const details = card.querySelector(".details");
    if (details) details.textContent = words ? words[team] : cards.details[team];
    const change = card.querySelector(".change");
    if (change) change.textContent = lastChange(screen, team);
    card.classList.toggle("leader", cards.leader === team);
  });
  const bar = root.querySelector(".share-a");
  if (bar) bar.style.width = `${100 * share}%`;
  // A number grown by a digit leaves its name less room: fit the names again.
  const digits = cards.numbers.map((number) => String(number).length).join();
  if (screen.digits !== digits) {
    screen.digits = digits;
    drawNames(root, screen.meta.teams);
  }
  drawPanel(root, screen);
  return cards;
}

// How the team's one number moved in the last turn: "+17 last turn" ("" before one).
function lastChange(screen, team) {
  const history = screen.history || [];
  if (history.length < 2 || !history.at(-1).turn) return "";
  const number = (entry) => scoreCards(screen.meta.game, entry.scores).numbers[team];
  const change = number(history.at(-1)) - number(history.at(-2));
  // Translators: how a team's number moved in the last turn, e.g. "+17 last turn"
  return interpolate(gettext("%(change)s last turn"),
                     { change: change > 0 ? `+${change}` : change === 0 ? "±0" : signed(change) });
}

export function drawNames(root, teams) {
  for (const team of teams) {
    const card = root.querySelector(`[data-team="${team.index}"]`);
    fitName(card.querySelector(".name"), team.name, team.short);
  }
}

// The full name on up to two lines, its type made smaller until it fits; where it
// cannot fit even so, the organiser's short code (the full name stays its title).
function fitName(node, name, short) {
  if (!node) return;
  node.style.fontSize = "";
  node.textContent = name;
  node.title = name;
  node.classList.remove("short");
  const base = parseFloat(getComputedStyle(node).fontSize);
  const fits = () => {
    const line = parseFloat(getComputedStyle(node).lineHeight) || parseFloat(getComputedStyle(node).fontSize) * 1.2;
    return node.scrollWidth <= node.clientWidth + 1 && node.scrollHeight <= 2 * line + 2;
  };
  let scale = 1;
  while (!fits() && scale > NAME_SMALLEST) {
    scale -= 0.05;
    node.style.fontSize = `${base * scale}px`;
  }
  if (fits() || !short) {
    while (!fits() && scale > 0.3) { // no short code: smaller still, never cut
      scale -= 0.05;
      node.style.fontSize = `${base * scale}px`;
    }
    return;
  }
  node.style.fontSize = "";
  node.textContent = short;
  node.classList.add("short");
}

// The game's own parts: who moves next, each team's tray of pieces.
function drawPanel(root, screen) {
  const panel = screen.panel || {};
  const over = screen.status === "finished";
  for (const team of [0, 1]) {
    const card = root.querySelector(`[data-team="${team}"]`);
    const moving = !over && panel.to_move === team;
    card.classList.toggle("to-move", moving);
    const chip = card.querySelector(".to-move-chip");
    if (chip) {
      chip.hidden = !moving;
      // Translators: the chip on the card of the team whose move it is
      chip.textContent = gettext("to move");
    }
    const tray = card.querySelector(".tray");
    if (tray) drawTray(tray, panel.trays ? panel.trays[team] : null);
  }
}

// A team's pieces still to place, each drawn as its squares.
function drawTray(tray, pieces) {
  tray.hidden = !pieces;
  if (!pieces) return;
  const key = pieces.map((piece) => piece.name).join("");
  if (tray.dataset.pieces === key) return;
  tray.dataset.pieces = key;
  tray.replaceChildren(...pieces.map(pieceMark));
  tray.setAttribute("aria-label", interpolate(ngettext("%(count)s piece left: %(pieces)s",
                                                       "%(count)s pieces left: %(pieces)s", pieces.length),
                                              { count: pieces.length, pieces: key }));
}

function pieceMark(piece) {
  const svg = pieceSvg(piece.cells);
  svg.setAttribute("class", "piece");
  const title = document.createElementNS(svg.namespaceURI, "title");
  title.textContent = interpolate(ngettext("piece %(name)s, %(count)s square",
                                           "piece %(name)s, %(count)s squares", piece.size),
                                  { name: piece.name, count: piece.size });
  svg.append(title);
  return svg;
}

function setNumber(node, number) {
  const value = signed(number);
  if (node.textContent === value) return;
  node.textContent = value;
  node.classList.remove("bump");
  void node.offsetWidth; // restart the highlight
  node.classList.add("bump");
}
