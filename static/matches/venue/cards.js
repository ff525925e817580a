// The venue's team cards: each team's name, score and words, who leads and the bar
// between the cards, who moves next and each team's tray of pieces.

import { scoreCards } from "../board.js";
import { gettext, inLanguage, interpolate, ngettext } from "../i18n.js";
import { pieceSvg } from "../piece.js";
import { signed } from "./words.js";

const NAME_ONE_LINE = 0.6; // of the name's own size: smaller than this, it takes two lines
const NAME_SMALLEST = 0.6; // of the name's own size, before the short code takes its place
const NUMBER_SMALLEST = 0.5; // of the number's own size, to keep it whole on its card

export function drawTeams(root, screen, scores) {
  // The server's word on who leads, the bar and each card's words for the state drawn:
  // a step's own (a game played step by step) or the latest turn's (the result decides
  // at the end); only where the server sent none, the scores' as this page reads them.
  const said = moment(screen, scores);
  const cards = scoreCards(screen.meta, scores, said.lead);
  const words = said.panel?.words;
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
  if (bar) bar.style.width = `${100 * cards.share}%`;
  // A number grown by a digit (or given the ▲) leaves its name less room: fit again.
  const widths = `${cards.numbers.map((number) => String(number).length)}:${cards.leader}`;
  if (screen.digits !== widths) {
    screen.digits = widths;
    drawNames(root, screen.meta.teams);
  }
  drawPanel(root, screen, said.panel);
  return cards;
}

// What the server said of the state being drawn: a step's message carries its own `lead`
// and `panels` (docs/live-protocol.md, `step`), so the number, the ▲ and the words on a
// card never come from two moments.
function moment(screen, scores) {
  const step = screen.step;
  if (step && step.state?.scores === scores && step.lead) {
    return { lead: step.lead, panel: inLanguage(step.panels) || step.panel || null };
  }
  return { lead: screen.lead, panel: screen.panel };
}

// How the team's one number moved in the last turn: "+17 last turn" ("" before one).
function lastChange(screen, team) {
  const history = screen.history || [];
  if (history.length < 2 || !history.at(-1).turn) return "";
  const number = (entry) => entry.scores[team][screen.meta.headline];
  const change = number(history.at(-1)) - number(history.at(-2));
  // Translators: how a team's number moved in the last turn, e.g. "+17 last turn"
  return interpolate(gettext("%(change)s last turn"),
                     { change: change > 0 ? `+${change}` : change === 0 ? "±0" : signed(change) });
}

export function drawNames(root, teams) {
  for (const team of teams) {
    const card = root.querySelector(`[data-team="${team.index}"]`);
    fitNumber(card.querySelector(".total"), card); // first: the name has what it leaves
    fitName(card.querySelector(".name"), team.name, team.short);
  }
}

// The full name, on one line in smaller type if it can, else on two lines broken only
// between words (never inside one: "奈良工業 / 高等専門学校", never "奈良工業高 / 等専門学校"),
// its type made smaller until it fits; where it cannot fit even so, the organiser's short
// code (the full name stays its title).
function fitName(node, name, short) {
  if (!node) return;
  node.style.fontSize = "";
  node.style.whiteSpace = "nowrap";
  node.replaceChildren(...betweenWords(name));
  node.title = name;
  node.classList.remove("short");
  const base = parseFloat(getComputedStyle(node).fontSize);
  const fits = () => {
    const line = parseFloat(getComputedStyle(node).lineHeight) || parseFloat(getComputedStyle(node).fontSize) * 1.2;
    return node.scrollWidth <= node.clientWidth + 1 && node.scrollHeight <= 2 * line + 2;
  };
  const shrink = (smallest) => {
    let scale = 1;
    node.style.fontSize = "";
    while (!fits() && scale > smallest) {
      scale -= 0.05;
      node.style.fontSize = `${base * scale}px`;
    }
    return fits();
  };
  if (shrink(NAME_ONE_LINE)) return;
  node.style.whiteSpace = "normal";
  if (shrink(NAME_SMALLEST)) return;
  if (!short) {
    shrink(0.3); // no short code: smaller still, never cut
    return;
  }
  node.style.fontSize = "";
  node.textContent = short;
  node.classList.add("short");
}

// A name as text with a break allowed between its words only (<wbr>): the browser's own
// word boundaries, which know Japanese words (奈良 · 工業 · 高等 · 専門 · 学校) where no
// space tells them; the cards' CSS lets no line break anywhere else (keep-all).
function betweenWords(name) {
  if (typeof Intl === "undefined" || !Intl.Segmenter) return [name];
  const parts = [];
  let wordBefore = false; // a break between two words only: never before a "-" or a ")"
  for (const { segment, isWordLike } of new Intl.Segmenter(undefined, { granularity: "word" }).segment(name)) {
    if (wordBefore && isWordLike) parts.push(document.createElement("wbr"));
    parts.push(segment);
    wordBefore = isWordLike;
  }
  return parts;
}

// The team's number (and its ▲) whole on one line: smaller type where a long number
// does not fit its card (a four-digit score on a small tile), never wrapped or cut.
function fitNumber(node, card) {
  if (!node) return;
  node.style.fontSize = "";
  const base = parseFloat(getComputedStyle(node).fontSize);
  const fits = () => node.scrollWidth <= node.clientWidth + 1 && card.scrollWidth <= card.clientWidth + 1;
  let scale = 1;
  while (!fits() && scale > NUMBER_SMALLEST) {
    scale -= 0.05;
    node.style.fontSize = `${base * scale}px`;
  }
}

// The game's own parts: who moves next, each team's tray of pieces.
function drawPanel(root, screen, said) {
  const panel = said || {};
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
