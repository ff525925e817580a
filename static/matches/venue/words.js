// Small pieces of the venue's text: a span of words with its class, a signed number.

export function words(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

export function signed(value) {
  return value < 0 ? `−${-value}` : String(value);
}
