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

// The language of the page (templates/base.html sets <html lang>): "ja", "vi" or "en".
export const language = document.documentElement.lang || "en";

// A value sent in every language (the server's words: a verdict, a panel's words), in
// the page's; a plain value is shown as it is.
export function inLanguage(value) {
  if (value && typeof value === "object" && !Array.isArray(value) && "en" in value) {
    return value[language] ?? value.en;
  }
  return value;
}

// A score part's name as people read it ("wall": 城壁), the server's keys named once here.
const PARTS = {
  total: gettext("total"), wall: gettext("wall"), territory: gettext("territory"),
  tile: gettext("tile"), area: gettext("area"), treasure: gettext("treasure"),
  items: gettext("items"), remaining: gettext("remaining"),
};

export function partName(part) {
  return PARTS[part] ?? part;
}
