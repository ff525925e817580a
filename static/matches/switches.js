// The theme and language switches (templates/_switches.html), wherever a page puts them.
// On a screen nobody touches (the venue, the wall) they wait out of sight: they show
// while the pointer moves, a key is pressed or they hold the focus, and go 3 s after.

for (const button of document.querySelectorAll("[data-theme-choice]")) {
  // The switch shows the theme in use and changes it; the address loses its ?theme=,
  // so that a reload keeps what the viewer chose last.
  const show = () => button.setAttribute("aria-pressed",
    String(document.documentElement.dataset.theme === button.dataset.themeChoice));
  show();
  document.addEventListener("themechange", show);
  button.addEventListener("click", () => {
    localStorage.setItem("theme", button.dataset.themeChoice);
    document.documentElement.dataset.theme = button.dataset.themeChoice;
    const address = new URL(location.href);
    address.searchParams.delete("theme");
    history.replaceState(history.state, "", address);
    document.dispatchEvent(new Event("themechange"));
  });
}

// The language switch keeps the rest of the address (a venue screen's ?matches=...).
for (const link of document.querySelectorAll("[data-language]")) {
  const address = new URL(location.href);
  address.searchParams.set("lang", link.dataset.language);
  link.href = address.pathname + address.search + address.hash;
}

const SHOWN_MS = 3000;
if (document.querySelector(".switches.on-demand")) {
  let timer = 0;
  const wake = () => {
    document.documentElement.dataset.pointer = "awake";
    clearTimeout(timer);
    timer = setTimeout(() => delete document.documentElement.dataset.pointer, SHOWN_MS);
  };
  for (const kind of ["pointermove", "pointerdown", "keydown"]) {
    addEventListener(kind, wake, { passive: true });
  }
}
