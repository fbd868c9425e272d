// Evidence form: link subjects to the record. The "Subjects" field is an ARIA combobox:
// as the user types (debounced), /api/v1/subjects/suggest answers for the typed heading;
// the arrow keys move through the list, Enter or a click picks, Escape closes, and the
// list's size is announced. A pick becomes a chip (its label, with a Remove button) and a
// hidden "subjects" input holding the subject's vocabulary and id (mesh:D003920); the
// typed text is cleared. Text left in the field (an id such as mesh:D003920) is posted as
// it is, and the service refuses what is not a subject. Every value is inserted as text.
import { getJson } from "./api.js";

const DEBOUNCE_MS = 180;
const MAX_SUBJECTS = 8;

export function installSubjectPicker(root) {
  const input = root.querySelector('input[role="combobox"]');
  const list = root.querySelector('ul[role="listbox"]');
  const chosen = root.querySelector("ul.chosen-subjects");
  const status = root.querySelector('[role="status"]');
  if (!input || !list || !chosen || !status) return;

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

  function keys() {
    return [...chosen.querySelectorAll('input[name="subjects"]')].map((i) => i.value);
  }

  function render(body) {
    list.replaceChildren();
    items = (body.suggestions || []).filter((s) => !keys().includes(`${s.vocabulary}:${s.id}`));
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
        pick(i);
      });
      list.append(li);
    });
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
    const n = items.length;
    status.textContent = `${n} subject suggestion${n === 1 ? "" : "s"}; use the up and down arrows, Enter to pick.`;
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
      const params = { q: text, caret: String(text.length) };
      const { ok, body } = await getJson("/api/v1/subjects/suggest", params, controller.signal);
      if (ok && input.value === text) render(body);
      else if (!ok) close();
    } catch (error) {
      if (error.name !== "AbortError") close();
    }
  }

  function add(s) {
    const key = `${s.vocabulary}:${s.id}`;
    const li = document.createElement("li");
    li.className = "tag";
    const text = document.createElement("span");
    text.textContent = `${s.label} (${s.vocabulary_name} ${s.id})`;
    const hidden = document.createElement("input");
    hidden.type = "hidden";
    hidden.name = "subjects";
    hidden.value = key;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "btn-link";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove the subject ${s.label}`);
    remove.addEventListener("click", () => {
      li.remove();
      status.textContent = `${s.label} removed.`;
      input.focus();
    });
    li.append(text, " ", remove, hidden);
    chosen.append(li);
  }

  function pick(index) {
    const s = items[index];
    if (!s) return;
    close();
    if (keys().length >= MAX_SUBJECTS) {
      status.textContent = `At most ${MAX_SUBJECTS} subjects can be linked to one record.`;
      return;
    }
    add(s);
    input.value = "";
    status.textContent = `Picked ${s.label} (${s.vocabulary_name} ${s.id}); it will be linked to this record.`;
  }

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(suggest, DEBOUNCE_MS);
  });
  input.addEventListener("keydown", (event) => {
    if (list.hidden) {
      if (event.key === "ArrowDown" && input.value.trim()) {
        event.preventDefault();
        suggest();
      } else if (event.key === "Enter") {
        event.preventDefault(); // Enter in this field never records the evidence
      }
      return;
    }
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((active + 1) % items.length);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive(active <= 0 ? items.length - 1 : active - 1);
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (active >= 0) pick(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") {
      close();
    }
  });
  input.addEventListener("blur", () => setTimeout(close, 100));
  const form = input.form;
  if (form) {
    form.addEventListener("reset", () => {
      chosen.replaceChildren();
      close();
    });
  }
}
