// Keyboard shortcuts: "/" focuses the page's main box, "g s|p|t" goes to a page,
// "?" shows the shortcut list, Escape hides it. A page adds its own keys with addShortcut
// (listed on the same overlay, on that page only; not while a dialog is open).
const pageKeys = new Map();

function typing(target) {
  if (target instanceof HTMLInputElement) return !["checkbox", "radio", "button", "submit"].includes(target.type);
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["TEXTAREA", "SELECT"].includes(target.tagName));
}

export function addShortcut(key, label, run) {
  pageKeys.set(key, run);
  const list = document.querySelector("#help dl");
  if (!list) return;
  const dt = document.createElement("dt");
  const kbd = document.createElement("kbd");
  kbd.textContent = key;
  dt.append(kbd);
  const dd = document.createElement("dd");
  dd.textContent = label;
  list.append(dt, dd);
}

export function installKeys() {
  const help = document.getElementById("help");
  const toggle = document.querySelector(".help-toggle");
  const show = (open) => {
    if (!help || !toggle) return;
    help.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
  };
  if (toggle) toggle.addEventListener("click", () => show(help.hidden));
  let pendingG = false;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { show(false); return; }
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "?") { show(help.hidden); event.preventDefault(); return; }
    if (event.key === "/") {
      const box = document.querySelector('[data-focus-key="/"]');
      if (box) { box.focus(); event.preventDefault(); }
      return;
    }
    if (pendingG) {
      pendingG = false;
      const link = document.querySelector(`nav a[data-key="${event.key}"]`);
      if (link) { window.location.assign(link.getAttribute("href")); event.preventDefault(); }
      return;
    }
    if (event.key === "g") { pendingG = true; return; }
    const run = pageKeys.get(event.key);
    if (run && !document.querySelector("dialog[open]")) { run(); event.preventDefault(); }
  });
}
