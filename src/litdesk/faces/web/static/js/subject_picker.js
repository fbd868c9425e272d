// Evidence form: link subjects to the record. The "Subjects" field is an ARIA combobox
// (suggest_box.js) over /api/v1/subjects/suggest for the typed heading; Enter in it never
// records the evidence. A pick becomes a chip (its label, with a Remove button) and a
// hidden "subjects" input holding the subject's vocabulary and id (mesh:D003920); the
// typed text is cleared. Text left in the field (an id such as mesh:D003920) is posted as
// it is, and the service refuses what is not a subject. Every value is inserted as text.
import { suggestBox } from "./suggest_box.js";

const MAX_SUBJECTS = 8;

export function installSubjectPicker(root) {
  const input = root.querySelector('input[role="combobox"]');
  const list = root.querySelector('ul[role="listbox"]');
  const chosen = root.querySelector("ul.chosen-subjects");
  const status = root.querySelector('[role="status"]');
  if (!input || !list || !chosen || !status) return;

  function keys() {
    return [...chosen.querySelectorAll('input[name="subjects"]')].map((i) => i.value);
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

  const box = suggestBox({
    input, list, status, enterSubmits: false,
    params: (text) => ({ q: text, caret: String(text.length) }),
    answer: (body) => {
      const items = (body.suggestions || []).filter((s) => !keys().includes(`${s.vocabulary}:${s.id}`));
      const n = items.length;
      return { items, announce: `${n} subject suggestion${n === 1 ? "" : "s"}; use the up and down arrows, Enter to pick.` };
    },
    pick: (s) => {
      box.close();
      if (keys().length >= MAX_SUBJECTS) {
        status.textContent = `At most ${MAX_SUBJECTS} subjects can be linked to one record.`;
        return;
      }
      add(s);
      input.value = "";
      status.textContent = `Picked ${s.label} (${s.vocabulary_name} ${s.id}); it will be linked to this record.`;
    },
  });
  input.addEventListener("input", () => box.schedule());
  const form = input.form;
  if (form) {
    form.addEventListener("reset", () => {
      chosen.replaceChildren();
      box.close();
    });
  }
}
