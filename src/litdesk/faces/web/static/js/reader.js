// Reader: capture a text selection inside the abstract as (text, start offset); the server
// checks that the stored abstract reproduces the text at that offset. "Find occurrences"
// lets the reader highlight a typed passage by choosing which occurrence.
import { getJson } from "./api.js";

export function installReader() {
  const passage = document.getElementById("abstract");
  const text = document.getElementById("hl-text");
  const start = document.getElementById("hl-start");
  const where = document.getElementById("hl-where");
  const occ = document.getElementById("hl-occ");
  const found = document.getElementById("hl-found");
  const paperId = document.querySelector("article.reader").dataset.paperId;
  if (!passage) return;

  function capture() {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return;
    const range = sel.getRangeAt(0);
    if (!passage.contains(range.startContainer) || !passage.contains(range.endContainer)) return;
    const before = document.createRange();
    before.setStart(passage, 0);
    before.setEnd(range.startContainer, range.startOffset);
    const offset = before.toString().length;
    const chosen = range.toString();
    if (!chosen || chosen.length > 8000) return;
    if (passage.textContent.slice(offset, offset + chosen.length) !== chosen) return;
    text.value = chosen;
    start.value = String(offset);
    where.textContent = `Selected characters ${offset + 1} to ${offset + chosen.length} of the abstract.`;
  }
  document.addEventListener("selectionchange", capture);
  passage.addEventListener("mouseup", capture);
  passage.addEventListener("keyup", capture);
  text.addEventListener("input", () => {
    start.value = "";
    where.textContent = "Typed passage: the chosen occurrence is highlighted.";
  });

  document.getElementById("hl-find").addEventListener("click", async () => {
    found.replaceChildren();
    if (!text.value) { where.textContent = "Type the passage to find first."; return; }
    const { ok, body } = await getJson(`/api/v1/papers/${encodeURIComponent(paperId)}/occurrences`, { text: text.value });
    if (!ok) { where.textContent = body.message || "The passage could not be searched."; return; }
    if (body.occurrences.length === 0) { where.textContent = "The passage does not occur in the abstract."; return; }
    where.textContent = `${body.occurrences.length} occurrence(s); choose one.`;
    for (const o of body.occurrences) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `…${o.before}[${text.value}]${o.after}…`;
      button.addEventListener("click", () => {
        start.value = String(o.start);
        occ.value = String(o.occurrence);
        where.textContent = `Occurrence ${o.occurrence} chosen (character ${o.start + 1}).`;
      });
      item.append(button);
      found.append(item);
    }
  });
}
