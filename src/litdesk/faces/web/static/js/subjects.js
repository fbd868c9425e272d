// Search page: subject suggestions for the query's active term (an ARIA combobox). As the
// user types (debounced), /api/v1/subjects/suggest answers for the term at the caret; the
// list is navigated with the arrow keys (Enter or a click picks, Escape closes) and its
// size is announced. A pick replaces only the active term (with the server's quoted
// text), keeps the rest of the query, and records the subject (vocabulary, id, label) in
// hidden fields the search sends as expansion provenance; any later edit of the text
// clears it. "Insert a picked MeSH subject as a controlled term" puts the heading in as
// MESH:"…" instead (PubMed [MeSH Terms], Europe PMC MESH:; other providers refuse it);
// where a vocabulary has synonyms, "Add the vocabulary's synonyms" puts in an OR group.
// Every value is inserted as text.
import { getJson } from "./api.js";

const DEBOUNCE_MS = 180;

export function installSubjects() {
  const form = document.getElementById("search-form");
  const q = document.getElementById("q");
  const list = document.getElementById("q-suggest");
  const status = document.getElementById("q-suggest-status");
  const subject = document.getElementById("q-subject");
  const controlled = document.getElementById("q-as-controlled");
  const synonyms = document.getElementById("q-add-synonyms");
  const synonymsLabel = document.getElementById("q-synonyms-label");
  if (!form || !q || !list || !status || !subject) return;

  let timer = null;
  let controller = null;
  let items = [];
  let active = -1;
  let span = null;

  function close() {
    list.hidden = true;
    list.replaceChildren();
    q.setAttribute("aria-expanded", "false");
    q.removeAttribute("aria-activedescendant");
    items = [];
    active = -1;
  }

  function setActive(index) {
    const options = list.querySelectorAll('li[role="option"]');
    options.forEach((li, i) => li.setAttribute("aria-selected", i === index ? "true" : "false"));
    active = index;
    if (index >= 0 && options[index]) {
      q.setAttribute("aria-activedescendant", options[index].id);
      options[index].scrollIntoView({ block: "nearest" });
    } else {
      q.removeAttribute("aria-activedescendant");
    }
  }

  function render(body) {
    list.replaceChildren();
    items = body.suggestions || [];
    span = body.active;
    // the synonyms choice is offered only where the vocabulary has synonyms
    if (synonymsLabel && items.some((s) => s.insert_synonyms)) synonymsLabel.hidden = false;
    if (!items.length) {
      close();
      return;
    }
    items.forEach((s, i) => {
      const li = document.createElement("li");
      li.id = `q-opt-${i}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      const label = document.createElement("span");
      label.textContent = s.label;
      const meta = document.createElement("span");
      meta.className = "muted";
      meta.textContent = `${s.kind === "spelling" ? "did you mean? · " : ""}${s.vocabulary_name} ${s.id}`;
      li.append(label, meta);
      li.addEventListener("mousedown", (event) => {
        event.preventDefault(); // keep the focus in the query
        pick(i);
      });
      list.append(li);
    });
    if (body.attribution) {
      const note = document.createElement("li");
      note.className = "attribution";
      note.setAttribute("role", "presentation");
      note.textContent = `Source: ${body.attribution}`;
      list.append(note);
    }
    list.hidden = false;
    q.setAttribute("aria-expanded", "true");
    active = -1;
    const n = items.length;
    status.textContent = `${n} subject suggestion${n === 1 ? "" : "s"} for “${span.text}”; use the up and down arrows, Enter to pick.`;
  }

  async function suggest() {
    if (controller) controller.abort();
    const text = q.value;
    if (!text.trim() || document.activeElement !== q) {
      close();
      return;
    }
    controller = new AbortController();
    const mode = form.querySelector('input[name="mode"]:checked');
    const params = {
      q: text,
      caret: String(q.selectionStart ?? text.length),
      mode: mode ? mode.value : "keyword",
      field: form.elements.namedItem("field").value,
    };
    try {
      const { ok, body } = await getJson("/api/v1/subjects/suggest", params, controller.signal);
      if (ok && q.value === text) render(body);
      else if (!ok) close();
    } catch (error) {
      if (error.name !== "AbortError") close();
    }
  }

  function clearSubject() {
    if (subject.hidden) return;
    subject.replaceChildren();
    subject.hidden = true;
  }

  function pick(index) {
    const s = items[index];
    if (!s || !span) return;
    const value = q.value;
    const asControlled = Boolean(controlled && controlled.checked && s.insert_controlled);
    const withSynonyms = Boolean(!asControlled && synonyms && synonyms.checked && s.insert_synonyms);
    const text = asControlled ? s.insert_controlled : withSynonyms ? s.insert_synonyms : s.insert;
    q.value = value.slice(0, span.start) + text + value.slice(span.end);
    const caret = span.start + text.length;
    q.setSelectionRange(caret, caret);
    clearSubject();
    const shown = document.createElement("span");
    shown.append(`Subject from ${s.vocabulary_name}: `);
    const strong = document.createElement("strong");
    strong.textContent = s.label;
    shown.append(strong, ` (${s.id}), recorded with the search; editing the query clears it. `);
    const link = document.createElement("a");
    link.href = `/subject/${encodeURIComponent(s.vocabulary)}/${encodeURIComponent(s.id)}`;
    link.textContent = "Subject page";
    link.setAttribute("aria-label", `Subject page of ${s.label}`);
    shown.append(link);
    subject.append(shown);
    for (const [name, v] of [["subject_vocabulary", s.vocabulary], ["subject_id", s.id], ["subject_label", s.label]]) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = v;
      subject.append(input);
    }
    subject.hidden = false;
    close();
    const how = asControlled ? " as a controlled term" : withSynonyms ? " with its synonyms" : "";
    status.textContent = `Picked ${s.label} (${s.vocabulary_name} ${s.id})${how}.`;
    q.dataset.picked = "1";
    q.dispatchEvent(new Event("input", { bubbles: true })); // validation and the stale notice
  }

  q.addEventListener("input", () => {
    if (q.dataset.picked === "1") {
      delete q.dataset.picked;
      return;
    }
    clearSubject(); // any edit of the text clears the picked subject, as in the reference
    clearTimeout(timer);
    timer = setTimeout(suggest, DEBOUNCE_MS);
  });
  q.addEventListener("keydown", (event) => {
    if (list.hidden) {
      if (event.key === "ArrowDown" && q.value.trim()) {
        event.preventDefault();
        suggest();
      }
      return;
    }
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((active + 1) % items.length);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive(active <= 0 ? items.length - 1 : active - 1);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault(); // picks; the search waits for the next Enter
      pick(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") {
      close();
    }
  });
  q.addEventListener("blur", () => setTimeout(close, 100));
  form.addEventListener("change", (event) => {
    if (event.target instanceof HTMLElement && event.target.id !== "q") close();
  });
  for (const button of document.querySelectorAll("button.starter")) {
    button.addEventListener("click", clearSubject);
  }
}
