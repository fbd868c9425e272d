// Small DOM helpers shared by the page modules; every value is inserted as text.

// Append a <p> holding `text` (as text, never markup) to `parent`, with an optional class.
export function line(parent, text, className) {
  const p = document.createElement("p");
  p.textContent = text;
  if (className) p.className = className;
  parent.append(p);
  return p;
}

// "1 record", "2 records", "1,204 records" (the count as the server's `plural` filter writes it).
export function plural(n, one, many) {
  return `${Number(n).toLocaleString("en")} ${n === 1 ? one : many || `${one}s`}`;
}

// A scope form's radio follows what the person picks: ticking a paper (or "Select all")
// chooses "the papers checked below", choosing a Study in its list chooses "the PDFs of a
// Study's papers" (ticked papers under a still-chosen "whole library" were silently ignored).
// Runs in the capture phase, before the form's own change handlers read the scope.
export function followScope(form) {
  const pick = (value) => {
    const radio = form.querySelector(`input[name="scope"][value="${value}"]`);
    if (radio) radio.checked = true;
  };
  form.addEventListener("change", (event) => {
    const t = event.target;
    if ((t.name === "papers" || t.id === "scope-all") && t.checked) pick("papers");
    else if (t.tagName === "SELECT" && t.name === "study") pick("study");
  }, true);
}
