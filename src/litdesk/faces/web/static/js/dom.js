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
