// Writes that touch the page only when what it shows changes. The screens redraw their
// clocks ten times a second; writing an unchanged text or attribute still makes the
// browser restyle and repaint, which on a venue's small PC (and a test machine) costs
// a tenth of a core a screen for nothing.

export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// A data-* attribute; null or undefined removes it.
export function setData(node, key, value) {
  if (value === null || value === undefined) {
    if (key in node.dataset) delete node.dataset[key];
  } else if (node.dataset[key] !== String(value)) {
    node.dataset[key] = value;
  }
}

export function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

// (A class needs no helper: classList.toggle(name, on) changes nothing when it already
// is as asked.)
