// The scripts' words in the page's language: Django's catalog (/jsi18n/, loaded by
// templates/base.html before any module) defines the globals these stand for. Each is
// named as xgettext knows it, so `manage.py makemessages -d djangojs` finds the words:
// always a plain string literal inside gettext(...) or ngettext(...), never a template
// literal; values go in with interpolate(text, {name: value}) and `%(name)s` in the text.
// Without the catalog (a page opened from a file) the English words are shown.

const catalog = globalThis.django ?? null;

export function gettext(text) {
  return catalog ? catalog.gettext(text) : text;
}

export function ngettext(singular, plural, count) {
  return catalog ? catalog.ngettext(singular, plural, count) : count === 1 ? singular : plural;
}

export function pgettext(context, text) {
  return catalog ? catalog.pgettext(context, text) : text;
}

export function interpolate(text, values) {
  return text.replace(/%\((\w+)\)s/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// A translated sentence as a list of nodes and words: each `%(name)s` that `nodes` names
// becomes that node (a team's name in its colour, its marks), in the place the language
// puts it; the words between are given as `wrap` makes them (as they are by default).
export function withNodes(sentence, nodes, wrap = (text) => text) {
  return sentence.split(/(%\(\w+\)s)/).filter(Boolean).map((part) => {
    const name = /^%\((\w+)\)s$/.exec(part)?.[1];
    return name && name in nodes ? nodes[name] : wrap(part);
  });
}

// The language of the page (templates/base.html sets <html lang>): "ja", "vi" or "en".
export const language = document.documentElement.lang || "en";

// A reason of an outcome (English data: docs/formats.md, "Reasons") in the page's
// language, from `said`, the words the server sends beside the outcomes (a turn's, a
// snapshot's or a step's `reasons`); as it is where the server said nothing of it.
export function reasonSaid(reason, said) {
  return (said && Object.hasOwn(said, reason) && inLanguage(said[reason])) || reason;
}

// A value sent in every language (the server's words: a verdict, a panel's words), in
// the page's; a plain value is shown as it is.
export function inLanguage(value) {
  if (value && typeof value === "object" && !Array.isArray(value) && "en" in value) {
    return value[language] ?? value.en;
  }
  return value;
}
