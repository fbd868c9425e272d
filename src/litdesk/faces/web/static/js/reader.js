// Reader: capture a text selection inside the abstract or a full-text paragraph as (text,
// start offset, paragraph id, the paragraph's snapshot digest); the server checks that the
// text it holds reproduces the passage at that offset (and that the paragraph is still the
// one shown). "Find occurrences" highlights a typed passage by choosing which occurrence.
// The highlight and evidence forms post to the API so the service's messages are shown
// beside the form; every value is inserted as text.
import { csrfToken, getJson } from "./api.js";
import { plural } from "./dom.js";
import { say, swapFrom } from "./swap.js";

export function installReader() {
  const article = document.querySelector("article.reader");
  const paperId = article.dataset.paperId;
  const withFulltext = article.dataset.fulltext === "1";
  const form = document.getElementById("highlight-form");
  const text = document.getElementById("hl-text");
  const start = document.getElementById("hl-start");
  const block = document.getElementById("hl-block");
  const snapshot = document.getElementById("hl-snapshot");
  const where = document.getElementById("hl-where");
  const occ = document.getElementById("hl-occ");
  const found = document.getElementById("hl-found");
  const scope = document.getElementById("hl-scope");
  const passages = [...document.querySelectorAll("#abstract, .ft-block")];

  function passageOf(node) {
    return passages.find((p) => p.contains(node)) || null;
  }

  function capture() {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return;
    const range = sel.getRangeAt(0);
    const passage = passageOf(range.startContainer);
    if (!passage || !passage.contains(range.endContainer)) return;
    const before = document.createRange();
    before.setStart(passage, 0);
    before.setEnd(range.startContainer, range.startOffset);
    const offset = before.toString().length;
    const chosen = range.toString();
    if (!chosen || chosen.length > 8000) return;
    if (passage.textContent.slice(offset, offset + chosen.length) !== chosen) return;
    text.value = chosen;
    start.value = String(offset);
    const id = passage.dataset.block || "";
    block.value = id;
    snapshot.value = passage.dataset.snapshot || "";
    const label = id ? `full-text paragraph ${id}` : "the abstract";
    where.textContent = `Selected characters ${offset + 1} to ${offset + chosen.length} of ${label}.`;
  }
  document.addEventListener("selectionchange", capture);
  for (const p of passages) {
    p.addEventListener("mouseup", capture);
    p.addEventListener("keyup", capture);
    p.addEventListener("touchend", capture);
  }
  text.addEventListener("input", () => {
    start.value = "";
    block.value = "";
    snapshot.value = "";
    where.textContent = "Typed passage: the chosen occurrence of the abstract is highlighted, or find it and choose one.";
  });

  document.getElementById("hl-find").addEventListener("click", async () => {
    found.replaceChildren();
    if (!text.value) { where.textContent = "Type the passage to find first."; return; }
    const where_ = scope ? scope.value : "abstract";
    const { ok, body } = await getJson(
      `/api/v1/papers/${encodeURIComponent(paperId)}/occurrences`,
      { text: text.value, scope: where_ },
    );
    if (!ok) { where.textContent = body.message || "The passage could not be searched."; return; }
    const label = where_ === "fulltext" ? "the full text" : "the abstract";
    if (body.occurrences.length === 0) { where.textContent = `The passage does not occur in ${label}.`; return; }
    where.textContent = `${plural(body.occurrences.length, "occurrence")} in ${label}; choose one.`;
    for (const o of body.occurrences) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      const place = o.block ? `${o.block}: ` : "";
      button.textContent = `${place}…${o.before}[${text.value}]${o.after}…`;
      button.addEventListener("click", () => {
        start.value = String(o.start);
        occ.value = String(o.occurrence);
        block.value = o.block || "";
        snapshot.value = o.snapshot || "";
        const inWhat = o.block ? ` in paragraph ${o.block}` : "";
        where.textContent = `Occurrence ${o.occurrence}${inWhat} chosen (character ${o.start + 1}).`;
      });
      item.append(button);
      found.append(item);
    }
  });

  async function post(path, data) {
    let response;
    try {
      response = await fetch(path, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "x-csrf-token": csrfToken(),
        },
        body: JSON.stringify(data),
      });
    } catch {
      return { ok: false, body: { message: "The request could not be sent." } };
    }
    let body = {};
    try { body = await response.json(); } catch { body = {}; }
    return { ok: response.ok, body };
  }

  function pageUrl(anchor, fulltext) {
    const url = new URL(`/paper/${encodeURIComponent(paperId)}`, window.location.origin);
    if (fulltext) url.searchParams.set("fulltext", "1");
    const section = new URLSearchParams(window.location.search).get("section");
    if (fulltext && section) url.searchParams.set("section", section);
    const study = new URLSearchParams(window.location.search).get("study");
    if (study) url.searchParams.set("study", study); // the Study the reader came from
    url.hash = anchor;
    return url;
  }

  function reload(anchor, fulltext) {
    const url = pageUrl(anchor, fulltext);
    const here = new URL(window.location.href);
    if (here.pathname === url.pathname && here.search === url.search) {
      window.history.replaceState(null, "", url.toString()); // a fragment change alone would not reload
      window.location.reload();
    } else {
      window.location.assign(url.toString());
    }
  }

  // After a save: the page as the server now renders it; its lists and counts replace ours
  // (the passages keep their elements and listeners: only their marked text is replaced).
  // When that page cannot be read or is another page, the whole page is loaded instead.
  async function refresh(anchor, fulltext, ids, said) {
    const url = pageUrl(anchor, fulltext);
    const here = new URL(window.location.href);
    let doc = null;
    if (url.search === here.search) {
      try {
        const response = await fetch(url.toString(), { headers: { accept: "text/html" }, credentials: "same-origin" });
        if (response.ok) doc = new DOMParser().parseFromString(await response.text(), "text/html");
      } catch { doc = null; }
    }
    if (!doc) { reload(anchor, fulltext); return; }
    for (const p of passages) {
      const next = p.id && doc.getElementById(p.id);
      if (next) p.replaceChildren(...Array.from(next.childNodes, (n) => document.importNode(n, true)));
    }
    if (!swapFrom(doc, ids).length) { reload(anchor, fulltext); return; }
    document.dispatchEvent(new CustomEvent("litdesk:swapped", { detail: { ids } }));
    say(said);
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = {
      text: text.value,
      start: start.value === "" ? null : Number(start.value),
      occurrence: Number(occ.value || "1"),
      comment: document.getElementById("hl-comment").value || null,
      block: block.value || null,
      snapshot: snapshot.value || null,
      study: document.getElementById("hl-study")?.value || null,
    };
    const { ok, body } = await post(`/api/v1/papers/${encodeURIComponent(paperId)}/highlights`, data);
    if (!ok) { where.textContent = body.message || "The highlight was refused."; return; }
    const full = withFulltext || Boolean(data.block);
    if (full !== withFulltext) { reload("notes", full); return; }
    form.reset();
    start.value = ""; block.value = ""; snapshot.value = "";
    where.textContent = "";
    found.replaceChildren();
    await refresh("notes", full, ["notes"], "Highlight added.");
  });

  const evForm = document.getElementById("evidence-form");
  if (!evForm) return;
  const evMessage = document.getElementById("ev-message");
  document.getElementById("ev-use-selection").addEventListener("click", () => {
    if (!text.value) {
      evMessage.hidden = false;
      evMessage.textContent = "Select a passage in the abstract or a full-text paragraph first.";
      return;
    }
    evMessage.hidden = true;
    document.getElementById("ev-passage").value = text.value;
    document.getElementById("ev-block").value = block.value;
    document.getElementById("ev-snapshot").value = snapshot.value;
    document.getElementById(block.value ? "ev-src-fulltext" : "ev-src-abstract").checked = true;
  });
  // The Study field: another Study has its own form, so the page shows that Study's form.
  const evStudy = document.getElementById("ev-study");
  if (evStudy) {
    evStudy.addEventListener("change", () => {
      const url = pageUrl("evidence", withFulltext);
      if (evStudy.value) url.searchParams.set("study", evStudy.value);
      else url.searchParams.delete("study");
      window.location.assign(url.toString());
    });
  }
  // "Record passage" beside each full-text paragraph: the whole paragraph as the passage,
  // checked against the paragraph shown (its id and snapshot), in the opened form.
  for (const wrap of document.querySelectorAll(".ft-block-wrap")) {
    const para = wrap.querySelector(".ft-block");
    const where_ = wrap.querySelector(".ft-where");
    if (!para || !where_) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary ft-record";
    button.textContent = "Record passage";
    button.setAttribute("aria-label", `Record passage ${para.dataset.block} as evidence`);
    button.addEventListener("click", () => {
      document.getElementById("ev-passage").value = para.textContent;
      document.getElementById("ev-block").value = para.dataset.block || "";
      document.getElementById("ev-snapshot").value = para.dataset.snapshot || "";
      document.getElementById("ev-src-fulltext").checked = true;
      evMessage.hidden = true;
      const fold = evForm.closest("details");
      if (fold) fold.open = true;
      evForm.scrollIntoView({ block: "start" });
      const first = evForm.querySelector('[name^="field."]');
      if (first) first.focus();
    });
    where_.append(" ", button);
  }
  document.getElementById("ev-block").addEventListener("input", () => {
    document.getElementById("ev-snapshot").value = ""; // a typed paragraph: no shown snapshot
  });
  evForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = { values: {} };
    const posted = new FormData(evForm);
    // the page and the PDF go with a passage from the PDF only (the API refuses them with
    // another source); the page field keeps the viewer's page when another source is picked
    const pdfOnly = posted.get("source") !== "pdf";
    for (const [k, v] of posted.entries()) {
      if (k === "csrf_token" || v === "") continue;
      if (pdfOnly && (k === "page" || k === "pdf")) continue;
      if (k.startsWith("field.")) data.values[k.slice(6)] = v; // the Study's form fields
      else if (k === "subjects") (data.subjects ||= []).push(v); // linked subjects: a list
      else data[k] = v;
    }
    const { ok, body } = await post(`/api/v1/papers/${encodeURIComponent(paperId)}/evidence`, data);
    if (!ok) {
      evMessage.hidden = false;
      evMessage.textContent = body.message || "The evidence was refused.";
      return;
    }
    const full = withFulltext || data.source === "fulltext";
    if (full !== withFulltext) { reload("evidence", full); return; }
    evForm.reset();
    document.getElementById("ev-snapshot").value = "";
    evMessage.hidden = true;
    const fold = evForm.closest("details");
    if (fold) fold.open = false; // the new card shows above; the form folds as after a reload
    await refresh("evidence", full, ["evidence-count", "evidence-list"], "Evidence recorded.");
  });
}
