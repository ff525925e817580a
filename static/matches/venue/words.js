// Small pieces of the venue's text: a span of words with its class, a signed number.

export function words(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

// A whole number as every screen writes it: a real minus sign (−3), never a hyphen
// (matches/rules/words.py's `number` is its twin).
export function signed(value) {
  return value < 0 ? `−${-value}` : String(value);
}

// Two numbers face to face, "37 – 13": the spaces never break, so a line never parts
// a score.
export function versus(a, b) {
  return `${a}\u00a0–\u00a0${b}`;
}
