// One ARIA combobox suggestion list for a text field, shared by the search form's subject
// suggestions (subjects.js) and the evidence form's subject picker (subject_picker.js):
// /api/v1/subjects/suggest is asked as the user types (debounced; an older question is
// aborted), the list is navigated with the arrow keys, Enter or a click picks, Escape and
// Tab close, and its size is announced in the status region. Every value is inserted as
// text. The caller says what to ask (params), what to show (answer → items, announcement,
// attribution) and what a pick does.
import { getJson } from "./api.js";

const DEBOUNCE_MS = 180;

/**
 * @param {object} o
 * @param {HTMLInputElement|HTMLTextAreaElement} o.input the field (role="combobox")
 * @param {HTMLElement} o.list the listbox
 * @param {HTMLElement} o.status the announcements' live region
 * @param {(text: string) => Record<string, string>} o.params the question for the field's text
 * @param {(body: object) => {items: object[], announce: string, attribution?: string}} o.answer
 * @param {(item: object) => void} o.pick what picking an item does
 * @param {boolean} o.enterSubmits whether Enter without a picked item submits the form
 */
export function suggestBox({ input, list, status, params, answer, pick, enterSubmits }) {
  let timer = null;
  let controller = null;
  let items = [];
  let active = -1;

  function close() {
    list.hidden = true;
    list.replaceChildren();
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    items = [];
    active = -1;
  }

  function setActive(index) {
    const options = list.querySelectorAll('li[role="option"]');
    options.forEach((li, i) => li.setAttribute("aria-selected", i === index ? "true" : "false"));
    active = index;
    if (index >= 0 && options[index]) {
      input.setAttribute("aria-activedescendant", options[index].id);
      options[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function choose(index) {
    const item = items[index];
    if (item) pick(item);
  }

  function show(body) {
    const shown = answer(body);
    list.replaceChildren();
    items = shown.items;
    if (!items.length) {
      close();
      return;
    }
    items.forEach((s, i) => {
      const li = document.createElement("li");
      li.id = `${list.id}-opt-${i}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      const label = document.createElement("span");
      label.textContent = s.label;
      const meta = document.createElement("span");
      meta.className = "muted";
      meta.textContent = `${s.kind === "spelling" ? "did you mean? · " : ""}${s.vocabulary_name} ${s.id}`;
      li.append(label, meta);
      li.addEventListener("mousedown", (event) => {
        event.preventDefault(); // keep the focus in the field
        choose(i);
      });
      list.append(li);
    });
    if (shown.attribution) {
      const note = document.createElement("li");
      note.className = "attribution";
      note.setAttribute("role", "presentation");
      note.textContent = `Source: ${shown.attribution}`;
      list.append(note);
    }
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
    status.textContent = shown.announce;
  }

  async function suggest() {
    if (controller) controller.abort();
    const text = input.value;
    if (!text.trim() || document.activeElement !== input) {
      close();
      return;
    }
    controller = new AbortController();
    try {
      const { ok, body } = await getJson("/api/v1/subjects/suggest", params(text), controller.signal);
      if (ok && input.value === text) show(body);
      else if (!ok) close();
    } catch (error) {
      if (error.name !== "AbortError") close();
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(suggest, DEBOUNCE_MS);
  }

  input.addEventListener("keydown", (event) => {
    if (list.hidden) {
      if (event.key === "ArrowDown" && input.value.trim()) {
        event.preventDefault();
        suggest();
      } else if (event.key === "Enter" && !enterSubmits) {
        event.preventDefault();
      }
      return;
    }
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((active + 1) % items.length);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive(active <= 0 ? items.length - 1 : active - 1);
    } else if (event.key === "Enter" && (active >= 0 || !enterSubmits)) {
      event.preventDefault(); // picks; a form that submits on Enter waits for the next one
      if (active >= 0) choose(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") {
      close();
    }
  });
  input.addEventListener("blur", () => setTimeout(close, 100));
  return { close, schedule };
}
