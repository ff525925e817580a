// One element of the replay's, with its words and class.

export function text(tag, words, className) {
  const node = document.createElement(tag);
  node.textContent = words;
  if (className) node.className = className;
  return node;
}
