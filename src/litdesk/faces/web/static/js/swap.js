// Partial updates: a form with data-swap="#list #counts" is sent by fetch; the page the server
// answers with (after its redirect, the same page as without script) is parsed, and its
// elements with those ids replace the current ones. #live (an aria-live region in base.html)
// says what changed. Without script the form posts and the server redirects as before (PRG).
// Only markup the server rendered for this origin is inserted (parsed, never as a string).
// When the answer has none of the ids (another page, an error) the browser goes there instead.
import { csrfToken } from "./api.js";

function ids(form) {
  return (form.dataset.swap || "").split(/\s+/).filter(Boolean).map((s) => s.replace(/^#/, ""));
}

function body(form, submitter) {
  const data = new FormData(form, submitter || undefined);
  if ((form.getAttribute("enctype") || "").startsWith("multipart/")) return data;
  const params = new URLSearchParams();
  for (const [k, v] of data) if (typeof v === "string") params.append(k, v);
  return params;
}

export function say(text) {
  const live = document.getElementById("live");
  if (!live) return;
  // cleared first so the same words said twice are announced twice
  live.textContent = "";
  window.setTimeout(() => { live.textContent = text; }, 50);
}

// What the swapped regions say about the change: a notice the server put in them, else the
// form's data-swap-say, else a plain "Updated".
function message(form, swapped) {
  for (const el of swapped) {
    const notice = el.matches(".notice, [role=status]") ? el : el.querySelector(".notice, [role=status]");
    if (notice && notice.textContent.trim()) return notice.textContent.trim().replace(/\s+/g, " ");
  }
  return form.dataset.swapSay || "Updated.";
}

export function swapFrom(doc, wanted) {
  const swapped = [];
  for (const id of wanted) {
    const now = document.getElementById(id);
    const next = doc.getElementById(id);
    if (!now || !next) continue;
    const fresh = document.importNode(next, true);
    fresh.classList.add("swapped");
    now.replaceWith(fresh);
    swapped.push(fresh);
  }
  return swapped;
}

// Load this page again in the background and swap the regions with these ids (a list or a
// count that a finished job or an upload changed); #live says `text`. True when swapped.
export async function refresh(wanted, text) {
  let response;
  try {
    response = await fetch(window.location.href, { headers: { accept: "text/html" }, credentials: "same-origin" });
  } catch {
    return false;
  }
  if (!response.ok) return false;
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const swapped = swapFrom(doc, wanted);
  if (!swapped.length) return false;
  document.dispatchEvent(new CustomEvent("litdesk:swapped", { detail: { ids: wanted } }));
  if (text) say(text);
  return true;
}

async function send(form, submitter) {
  const wanted = ids(form);
  const focusedId = document.activeElement && document.activeElement.id;
  const regions = wanted.map((id) => document.getElementById(id)).filter(Boolean);
  const payload = body(form, submitter); // before the submitter is disabled (it would be left out)
  for (const r of regions) r.setAttribute("aria-busy", "true");
  if (submitter) submitter.disabled = true;
  const method = (form.getAttribute("method") || "get").toUpperCase();
  let response;
  try {
    if (method === "GET") {
      // a filter: the same address the browser would open, kept in the history
      const url = new URL(form.action, window.location.href);
      url.search = new URLSearchParams(payload).toString();
      response = await fetch(url, { headers: { accept: "text/html" }, credentials: "same-origin" });
    } else {
      response = await fetch(form.action, {
        method,
        body: payload,
        headers: { "x-csrf-token": csrfToken(), accept: "text/html" },
        credentials: "same-origin",
      });
    }
  } catch {
    response = null;
  } finally {
    for (const r of regions) r.removeAttribute("aria-busy");
    if (submitter) submitter.disabled = false;
  }
  if (!response || !(response.headers.get("content-type") || "").includes("text/html")) {
    // no answer (offline) or not a page: let the browser post it and show what the server says
    form.dataset.swapOff = "1";
    form.requestSubmit(submitter || undefined);
    delete form.dataset.swapOff;
    return;
  }
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const here = new URL(window.location.href);
  const there = new URL(response.url, here);
  if (!response.ok) {
    // the server refused (its page says why, in words): show that page's main content here
    const main = document.getElementById("main");
    const theirs = doc.getElementById("main");
    if (main && theirs) {
      main.replaceChildren(...Array.from(theirs.childNodes, (n) => document.importNode(n, true)));
      document.title = doc.title;
      main.focus();
      const h = main.querySelector("h1, h2");
      say(h ? h.textContent.trim() : "The action could not be done.");
      return;
    }
  }
  const swapped = there.pathname === here.pathname ? swapFrom(doc, wanted) : [];
  if (!swapped.length) {
    window.location.assign(there.href);
    return;
  }
  if (there.href !== here.href) {
    if (method === "GET") window.history.pushState(null, "", there.href);
    else window.history.replaceState(null, "", there.href);
  }
  document.dispatchEvent(new CustomEvent("litdesk:swapped", { detail: { ids: wanted } }));
  say(message(form, swapped));
  // focus stays where it was when that element came back; else on the first swapped region
  const back = focusedId && document.getElementById(focusedId);
  if (back && back.isConnected) back.focus();
  else if (document.activeElement === document.body || !document.activeElement || !document.activeElement.isConnected) {
    const first = swapped[0];
    if (!first.hasAttribute("tabindex")) first.setAttribute("tabindex", "-1");
    first.focus();
  }
}

export function installSwap() {
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.swap || form.dataset.swapOff) return;
    if (event.defaultPrevented) return; // another behaviour (a confirmation) holds it
    event.preventDefault();
    send(form, event.submitter instanceof HTMLElement ? event.submitter : null);
  });
}

// a filter's address went into the history: going back shows that page again
window.addEventListener("popstate", () => {
  if (document.querySelector("form[data-swap][method=get]")) window.location.reload();
});
