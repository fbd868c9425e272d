// The top bar: "More" (a <details>, open and shut without script) also shuts on Escape (focus
// back on its summary), on a click elsewhere and when the focus leaves it. On a phone the links
// are one scrolling row: the current page's link is brought into view (again once the counts
// are shown).
export function installNav() {
  const more = document.querySelector(".top .nav-more");
  if (more) {
    const shut = () => { more.open = false; };
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !more.open) return;
      const inside = more.contains(document.activeElement);
      shut();
      if (inside) more.querySelector("summary").focus();
    });
    document.addEventListener("click", (event) => {
      if (more.open && !more.contains(event.target)) shut();
    });
    more.addEventListener("focusout", (event) => {
      if (event.relatedTarget && !more.contains(event.relatedTarget)) shut();
    });
  }
  showCurrent();
  // the first counts beside Saved papers and Review notebook widen the row (later ones leave
  // the row where the reader scrolled it)
  document.addEventListener("litdesk:counts", showCurrent, { once: true });
}

function showCurrent() {
  const current = document.querySelector('.top .nav-links a[aria-current="page"]');
  const row = current && current.parentElement;
  if (row && row.scrollWidth > row.clientWidth) {
    row.scrollLeft = current.offsetLeft - row.offsetLeft - 16;
  }
}
