// Small DOM helpers shared by the page modules; every value is inserted as text.

// Append a <p> holding `text` (as text, never markup) to `parent`, with an optional class.
export function line(parent, text, className) {
  const p = document.createElement("p");
  p.textContent = text;
  if (className) p.className = className;
  parent.append(p);
  return p;
}
