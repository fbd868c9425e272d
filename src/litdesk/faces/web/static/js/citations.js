// Citation browser: choose works (up to 20) and save them into a Study (a new Study asks
// first, see confirm.js); the key "a" saves the chosen works.
import { shortcutButtons } from "./shortcuts.js";

const MAX_CHOSEN = 20;

export function installCitations() {
  const form = document.getElementById("cite-save");
  const count = document.getElementById("cite-count");
  if (!form || !count) return;
  form.addEventListener("change", (event) => {
    const boxes = form.querySelectorAll('input[name="paper_ids"]:checked');
    if (boxes.length > MAX_CHOSEN && event.target instanceof HTMLInputElement) {
      event.target.checked = false;
      count.textContent = `At most ${MAX_CHOSEN} works at once.`;
      return;
    }
    count.textContent = `${boxes.length} chosen (up to ${MAX_CHOSEN})`;
  });
  form.addEventListener("submit", (event) => {
    const picked = form.querySelectorAll('input[name="paper_ids"]:checked').length;
    const study = form.elements.namedItem("study");
    const fresh = form.elements.namedItem("new_study");
    if (picked === 0) {
      event.preventDefault();
      count.textContent = "Choose at least one work first.";
    } else if (!(study && study.value) && !(fresh && fresh.value.trim())) {
      event.preventDefault();
      count.textContent = "Choose a Study or name a new one.";
    }
  });
  shortcutButtons(form);
}
