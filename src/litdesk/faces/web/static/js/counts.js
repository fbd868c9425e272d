// The header's live counts: saved papers and review notes beside their links (from
// /api/v1/counts). Read when a page opens, when it comes back from the history, when its tab
// is shown again, and after a change made in place: a swapped region (litdesk:swapped) or
// papers saved from the search page (litdesk:saved). Nothing is shown until a count is read
// (without script, or signed out, the links stay as they are). Numbers are set as text.
import { getJson } from "./api.js";

let pending = null;

function show(name, value) {
  const el = document.querySelector(`.top nav .nav-count[data-count="${name}"]`);
  if (!el || typeof value !== "number") return;
  const hidden = document.createElement("span");
  hidden.className = "visually-hidden";
  hidden.textContent = ": ";
  el.replaceChildren(hidden, value.toLocaleString("en"));
  el.hidden = false;
}

export async function refreshCounts() {
  if (pending) pending.abort();
  const controller = new AbortController();
  pending = controller;
  let answer;
  try {
    answer = await getJson("/api/v1/counts", {}, controller.signal);
  } catch {
    return; // offline, aborted by a newer read, or not JSON (signed out): leave them
  } finally {
    if (pending === controller) pending = null;
  }
  if (!answer.ok) return;
  show("saved", answer.body.saved);
  show("notes", answer.body.notes);
  document.dispatchEvent(new CustomEvent("litdesk:counts"));
}

export function installCounts() {
  if (!document.querySelector(".top nav .nav-count")) return;
  refreshCounts();
  document.addEventListener("litdesk:swapped", refreshCounts);
  document.addEventListener("litdesk:saved", refreshCounts);
  window.addEventListener("pageshow", (event) => { if (event.persisted) refreshCounts(); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refreshCounts();
  });
}
