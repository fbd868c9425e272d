// Search page: #q= seeding, starter examples, validation as you type (with the error's
// position, from /api/v1/query/check), the stale-results notice, the selection cap and the
// selection's keys (compare evidence, shared references of 2–5).
import { getJson } from "./api.js";
import { shortcutButtons } from "./shortcuts.js";

const MAX_SELECTION = 20;

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
      if (radio) radio.checked = true;
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
