// Search page: #q= seeding, starter examples, validation as you type (with the error's
// position, from /api/v1/query/check), the stale-results notice, a mode change resetting the
// field and the sort (a lane of another mode may not express them), the results as a list or
// in two columns (remembered in this browser), the selection cap, "Save selected" done in
// place (the header's counts follow) and the selection's keys (compare evidence, shared
// references of 2–5).
import { csrfToken, getJson } from "./api.js";
import { shortcutButtons } from "./shortcuts.js";
import { say } from "./swap.js";

const MAX_SELECTION = 20;
const LAYOUT_KEY = "litdesk.results.layout";

function storedLayout() {
  try {
    return window.localStorage.getItem(LAYOUT_KEY) === "grid" ? "grid" : "list";
  } catch {
    return "list"; // storage refused (a private window's policy): the list
  }
}

// The results as a list or in two columns (from a wide enough column; one on a phone): one
// toggle button (aria-pressed), the choice remembered in this browser.
function installLayout() {
  const box = document.getElementById("layout-switch");
  const toggle = document.getElementById("layout-grid");
  const results = document.getElementById("results");
  if (!box || !toggle || !results) return;
  function apply(layout) {
    results.classList.toggle("grid", layout === "grid");
    toggle.setAttribute("aria-pressed", String(layout === "grid"));
  }
  toggle.addEventListener("click", () => {
    const layout = toggle.getAttribute("aria-pressed") === "true" ? "list" : "grid";
    apply(layout);
    try {
      window.localStorage.setItem(LAYOUT_KEY, layout);
    } catch {
      // not remembered; the page still shows it
    }
  });
  apply(storedLayout());
  box.hidden = false;
}

// A mode change puts the field and the sort back to all and relevance (the reference's rule):
// the semantic lane expresses neither, so keeping them would only have a lane refuse.
export function resetForMode(form) {
  const changed = [];
  const field = form.elements.namedItem("field");
  const sort = form.elements.namedItem("sort");
  if (field instanceof HTMLSelectElement && field.value !== "all") {
    field.value = "all";
    changed.push("field: all");
  }
  if (sort instanceof HTMLSelectElement && sort.value !== "relevance") {
    sort.value = "relevance";
    changed.push("sort: relevance");
  }
  return changed;
}

export function installSearch() {
  const form = document.getElementById("search-form");
  const q = document.getElementById("q");
  const check = document.getElementById("q-check");
  const stale = document.getElementById("stale");

  if (window.location.hash.startsWith("#q=")) {
    try {
      q.value = decodeURIComponent(window.location.hash.slice(3)).slice(0, 300);
    } catch {
      q.value = window.location.hash.slice(3, 303);
    }
  }

  for (const button of document.querySelectorAll("button.starter")) {
    button.addEventListener("click", () => {
      q.value = button.dataset.q;
      const radio = form.querySelector(`input[name="mode"][value="${button.dataset.mode}"]`);
      if (radio && !radio.checked) {
        radio.checked = true;
        resetForMode(form); // a changed mode, as when the user picks it
      }
      q.focus();
      validate();
    });
  }

  let controller = null;
  let timer = null;
  async function validate() {
    if (controller) controller.abort();
    const text = q.value;
    if (!text.trim()) {
      check.textContent = "";
      check.className = "check";
      q.removeAttribute("aria-invalid");
      return;
    }
    controller = new AbortController();
    const field = form.elements.namedItem("field").value;
    try {
      const { body } = await getJson("/api/v1/query/check", { q: text, field }, controller.signal);
      if (body.ok) {
        check.textContent = "Query looks valid.";
        check.className = "check good";
        q.removeAttribute("aria-invalid");
      } else {
        const where = body.position ? ` (at character ${body.position})` : "";
        check.textContent = `${body.message || "invalid query"}${where}`;
        check.className = "check bad";
        q.setAttribute("aria-invalid", "true");
      }
    } catch (error) {
      if (error.name !== "AbortError") check.textContent = "The query could not be checked.";
    }
  }
  q.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(validate, 200);
    markStale();
  });
  form.addEventListener("change", markStale);
  for (const radio of form.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => {
      const changed = resetForMode(form);
      if (changed.length) say(`Search mode ${radio.value}: ${changed.join(", ")}.`);
    });
  }
  installLayout();

  function markStale() {
    if (!stale || !form.dataset.appliedQ) return;
    const mode = form.querySelector('input[name="mode"]:checked');
    stale.hidden = q.value === form.dataset.appliedQ && mode && mode.value === form.dataset.appliedMode;
  }

  const selection = document.getElementById("selection");
  const count = document.getElementById("sel-count");
  if (selection && count) {
    selection.addEventListener("change", (event) => {
      const boxes = [...selection.querySelectorAll('input[name="paper_ids"]:checked')];
      if (boxes.length > MAX_SELECTION && event.target instanceof HTMLInputElement) {
        event.target.checked = false;
        count.textContent = `A selection holds at most ${MAX_SELECTION} papers.`;
        return;
      }
      count.textContent = `${boxes.length} selected (up to ${MAX_SELECTION})`;
    });
    selection.addEventListener("submit", (event) => {
      const picked = selection.querySelectorAll('input[name="paper_ids"]:checked').length;
      const action = event.submitter instanceof HTMLButtonElement ? event.submitter.value : "";
      if (picked === 0 && action !== "" && action !== "page_ris") {
        event.preventDefault();
        count.textContent = "Select at least one paper first.";
      } else if (action === "save" && !selection.dataset.plain) {
        event.preventDefault(); // saved in place; the page (and its selection) stays
        saveInPlace(selection, event.submitter);
      } else if (action === "shared" && (picked < 2 || picked > 5)) {
        event.preventDefault();
        count.textContent = `Shared references need 2 to 5 selected papers (${picked} selected).`;
      } else if (action === "shared") { // a long look-up: it can be stopped (it changes nothing)
        count.textContent = "Finding shared references… press Escape to stop.";
        const stop = (e) => {
          if (e.key !== "Escape") return;
          window.stop();
          count.textContent = "Stopped: the shared references were not shown; nothing was changed.";
          document.removeEventListener("keydown", stop);
        };
        document.addEventListener("keydown", stop);
      }
    });
    const clear = document.getElementById("sel-clear");
    if (clear) {
      clear.addEventListener("click", () => {
        for (const box of selection.querySelectorAll('input[name="paper_ids"]:checked')) box.checked = false;
        count.textContent = `Selection cleared: 0 selected (up to ${MAX_SELECTION})`;
      });
    }
    shortcutButtons(selection);
  }
}

// "Save selected" without leaving the page: the selection is posted to /api/v1/selection/save,
// the outcome said beside the selection, and the header's counts read again. When the request
// does not get an answer, the form is posted as without script.
async function saveInPlace(selection, submitter) {
  const outcome = document.getElementById("sel-outcome");
  const ids = [...selection.querySelectorAll('input[name="paper_ids"]:checked')].map((b) => b.value);
  const runId = selection.elements.namedItem("run_id").value;
  if (submitter) submitter.disabled = true;
  let response = null;
  let body = {};
  try {
    response = await fetch("/api/v1/selection/save", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-csrf-token": csrfToken() },
      body: JSON.stringify({ run_id: runId, paper_ids: ids }),
      credentials: "same-origin",
    });
    body = await response.json();
  } catch {
    response = null;
  } finally {
    if (submitter) submitter.disabled = false;
  }
  if (!response) {
    selection.dataset.plain = "1";
    selection.requestSubmit(submitter || undefined);
    delete selection.dataset.plain;
    return;
  }
  if (!response.ok) {
    outcome.textContent = `Not saved: ${body.message || `the server answered ${response.status}`}`;
    return;
  }
  const saved = body.saved.length;
  const failed = body.failed.map((f) => `${f.title || f.id}: ${f.reason}`);
  let text = `Saved ${saved} ${saved === 1 ? "paper" : "papers"} (${body.created} new).`;
  if (failed.length) text += ` Not saved: ${failed.join("; ")}.`;
  outcome.textContent = text;
  document.dispatchEvent(new CustomEvent("litdesk:saved", { detail: { saved: body.saved } }));
}
