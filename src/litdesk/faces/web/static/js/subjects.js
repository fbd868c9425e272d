// Search page: subject suggestions for the query's active term (an ARIA combobox,
// suggest_box.js, over /api/v1/subjects/suggest for the term at the caret, then OpenAlex's
// over /api/v1/subjects/remote after them). A pick
// replaces only the active term (with the server's quoted text), keeps the rest of the
// query, and records the subject (vocabulary, id, label) in hidden fields the search sends
// as expansion provenance; any later edit of the text clears it. "Insert a picked MeSH subject as a controlled term" puts the heading in as
// MESH:"…" instead (PubMed [MeSH Terms], Europe PMC MESH:; other providers refuse it);
// where a vocabulary has synonyms, "Add the vocabulary's synonyms" puts in an OR group.
// Every value is inserted as text.
import { suggestBox } from "./suggest_box.js";

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

  let span = null;

  function clearSubject() {
    if (subject.hidden) return;
    subject.replaceChildren();
    subject.hidden = true;
  }

  function pick(s) {
    if (!span) return;
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
    shown.append(strong, ` (${s.id}), recorded with the search; editing the query clears it.`);
    if (s.kind !== "remote") {
      // a remote subject (OpenAlex) has no page here: it stays plain text
      const link = document.createElement("a");
      link.href = `/subject/${encodeURIComponent(s.vocabulary)}/${encodeURIComponent(s.id)}`;
      link.textContent = "Subject page";
      link.setAttribute("aria-label", `Subject page of ${s.label}`);
      shown.append(" ", link);
    }
    subject.append(shown);
    for (const [name, v] of [["subject_vocabulary", s.vocabulary], ["subject_id", s.id], ["subject_label", s.label]]) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = v;
      subject.append(input);
    }
    subject.hidden = false;
    box.close();
    const how = asControlled ? " as a controlled term" : withSynonyms ? " with its synonyms" : "";
    status.textContent = `Picked ${s.label} (${s.vocabulary_name} ${s.id})${how}.`;
    q.dataset.picked = "1";
    q.dispatchEvent(new Event("input", { bubbles: true })); // validation and the stale notice
  }

  const box = suggestBox({
    input: q, list, status, pick, enterSubmits: true,
    remote: { path: "/api/v1/subjects/remote", label: "OpenAlex" },
    params: (text) => {
      const mode = form.querySelector('input[name="mode"]:checked');
      return {
        q: text,
        caret: String(q.selectionStart ?? text.length),
        mode: mode ? mode.value : "keyword",
        field: form.elements.namedItem("field").value,
      };
    },
    answer: (body) => {
      const items = body.suggestions || [];
      span = body.active;
      // the synonyms choice is offered only where the vocabulary has synonyms
      if (synonymsLabel && items.some((s) => s.insert_synonyms)) synonymsLabel.hidden = false;
      const n = items.length;
      return {
        items,
        attribution: body.attribution,
        announce: `${n} subject suggestion${n === 1 ? "" : "s"} for “${span ? span.text : ""}”; use the up and down arrows, Enter to pick.`,
      };
    },
  });

  q.addEventListener("input", () => {
    if (q.dataset.picked === "1") {
      delete q.dataset.picked;
      return;
    }
    clearSubject(); // any edit of the text clears the picked subject, as in the reference
    box.schedule();
  });
  form.addEventListener("change", (event) => {
    if (event.target instanceof HTMLElement && event.target.id !== "q") box.close();
  });
  for (const button of document.querySelectorAll("button.starter")) {
    button.addEventListener("click", clearSubject);
  }
}
