// The screening page: decide with the keyboard (i include, e exclude, m maybe, u undo,
// n next, f full text, r reason, ? the list of keys in a dialog) or the buttons. Decisions go
// to /api/v1 with the CSRF header and the next record replaces the current one without a
// reload; every value is inserted as text (highlighted keywords arrive as segments cut by the
// server and become <mark> elements holding text). Without this script the forms still work.
import { csrfToken, getJson } from "./api.js";

const root = document.getElementById("screen");
if (root) install(root);

async function postJson(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "x-csrf-token": csrfToken(),
    },
    body: JSON.stringify(body || {}),
  });
  let data = {};
  try { data = await response.json(); } catch { data = {}; }
  return { ok: response.ok, status: response.status, body: data };
}

function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function segments(target, list, empty) {
  target.replaceChildren();
  if (!list || !list.length) {
    if (empty) target.append(empty);
    return;
  }
  for (const s of list) {
    if (s.mark === "include" || s.mark === "exclude") target.append(el("mark", s.text, `kw-${s.mark}`));
    else target.append(document.createTextNode(s.text));
  }
}

const fmt = (n) => Number(n || 0).toLocaleString("en-GB");
// "5 Dec 2026, 01:14", or "just now" / "3 minutes ago" within the hour (as the server's `when`)
function when(iso) {
  const at = new Date(iso);
  if (!iso || Number.isNaN(at.getTime())) return iso || "";
  const age = (Date.now() - at.getTime()) / 60000;
  if (age >= 0 && age < 1) return "just now";
  const ago = (n, unit) => `${n} ${unit}${n === 1 ? "" : "s"} ago`;
  if (age >= 0 && age < 60) return ago(Math.floor(age), "minute");
  if (age >= 0 && age < 1440) return ago(Math.floor(age / 60), "hour");
  const day = at.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
  const time = at.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  return `${day}, ${time}`;
}
const VERDICT = { include: "Include", exclude: "Exclude", maybe: "Maybe" };
const PAST = { include: "Included", exclude: "Excluded", maybe: "Marked maybe" };

function install(root) {
  const study = root.dataset.study;
  const stage = root.dataset.stage;
  const order = root.dataset.order || "";
  const seed = root.dataset.seed || "1";
  const api = `/api/v1/studies/${encodeURIComponent(study)}/screening`;
  const $ = (id) => document.getElementById(id);
  const card = $("screen-card");
  const form = $("decide-form");
  const reason = $("reason");
  const note = $("note");
  const error = $("decide-error");
  const flash = $("screen-flash");
  const dialog = $("screen-keys");
  let busy = false;
  let swaps = 0;

  const nextParams = () => {
    const params = { stage };
    if (order) params.order = order;
    if (order === "random") params.seed = seed;
    return params;
  };
  const pageUrl = () => {
    const url = new URL(window.location.href);
    url.search = new URLSearchParams(nextParams()).toString();
    return url.toString();
  };
  // The progress bar stays at the top of the window (sticky): the next record is shown from
  // its title just below the bar, not under it, and the decision panel (sticky beside the
  // record on a wide screen) stops below it too (--screen-status-h in screen.css).
  const status = $("screen-status");
  const barHeight = () => (status ? status.getBoundingClientRect().height : 0);
  let barNow = 0;
  const keepBarHeight = () => {
    const before = barNow;
    barNow = barHeight();
    root.style.setProperty("--screen-status-h", `${Math.ceil(barNow)}px`);
    // the counts and the model's line arrive after the record (when its decision is saved) and
    // may wrap the bar onto another line: a title shown just below the bar stays below it
    const title = $("record-title");
    if (!title || barNow <= before || window.scrollY <= 0) return;
    const top = title.getBoundingClientRect().top;
    if (top < barNow && top >= before) window.scrollBy(0, top - barNow - 8);
  };
  if (status && typeof ResizeObserver === "function") new ResizeObserver(keepBarHeight).observe(status);
  keepBarHeight();
  const showFromTitle = () => {
    const top = card.getBoundingClientRect().top + window.scrollY - barHeight() - 8;
    window.scrollTo({ top: Math.max(0, top) });
  };
  const say = (text) => { if (!flash) return; flash.textContent = text; flash.title = text; flash.hidden = !text; };
  const fail = (text) => { if (!error) return; error.textContent = text; error.hidden = !text; };

  // "412 of 2,072 screened, 17 included" (everyone's when visible, yours while blind)
  function showProgress(pr) {
    if (!pr || !pr.mine) return;
    const c = pr.all || pr.mine;
    const line = $("progress-line");
    if (line) {
      line.replaceChildren(el("span", `${fmt(c.screened)} of ${fmt(c.total)} screened`, "count"));
      let rest = `, ${fmt(c.included)} included`;
      if (c.maybe) rest += `, ${fmt(c.maybe)} maybe`;
      if (c.not_retrieved) rest += `, ${fmt(c.not_retrieved)} recorded not retrieved`;
      if (pr.all && pr.mine.screened !== pr.all.screened) rest += ` · you: ${fmt(pr.mine.screened)}`;
      else if (pr.blind) rest += " (yours; blind)";
      line.append(document.createTextNode(rest));
    }
    const bar = $("progress-bar");
    if (bar) { bar.max = Math.max(1, pr.mine.total || 0); bar.value = pr.mine.screened || 0; }
  }

  function modelText(md) {
    if (!md || md.state === "none") return "No model yet";
    if (md.blind) return `Ranked by a model trained on your ${fmt(md.trained_on)} decision${md.trained_on === 1 ? "" : "s"} (v${md.version}${md.state === "retraining" ? ", retraining" : ""})`;
    return `Model ${md.name || ""} v${md.version}, ${fmt(md.trained_on)} decision${md.trained_on === 1 ? "" : "s"}${md.state === "retraining" ? ", retraining" : ""}`;
  }

  function showHistory(list, key) {
    const box = $("record-history");
    if (!box) return;
    const heading = box.querySelector("h3");
    box.replaceChildren(heading);
    if (!list || !list.length) { box.append(el("p", "None yet.", "muted")); return; }
    const ol = el("ol", null, "history-list");
    for (const h of list) {
      const gone = h.status === "undone" || h.status === "superseded";
      const li = el("li", null, gone ? "undone" : "");
      if (h.kind === "undo") li.append(document.createTextNode("Undo"));
      else {
        li.append(el("span", VERDICT[h.verdict] || h.verdict, `verdict-tag ${h.verdict}`));
        if (h.kind === "resolution") li.append(document.createTextNode(" (resolution)"));
      }
      if (h.reason) li.append(document.createTextNode(` · ${h.reason}`));
      if (h.note) li.append(document.createTextNode(` · “${h.note}”`));
      const at = h.stage === "full_text" ? "full text" : "title and abstract";
      const who = h.reviewer === root.dataset.me ? "you" : (h.reviewer_name || h.reviewer);
      li.append(el("span", ` · ${who} · ${at} · ${when(h.made_at)}${gone ? ` · ${h.status}` : ""}`, "muted"));
      ol.append(li);
    }
    box.append(ol);
    const p = el("p");
    const a = el("a", "The record's whole history");
    a.href = `/study/${encodeURIComponent(study)}/screen/history?record=${encodeURIComponent(key)}`;
    p.append(a);
    box.append(p);
  }

  function showMembers(members) {
    const old = $("record-members");
    if (old) old.remove();
    if (!members || members.length < 2) return;
    const details = el("details", null, "members");
    details.id = "record-members";
    details.append(el("summary", `${members.length} records of this study (duplicates merged)`));
    const ul = el("ul");
    for (const r of members) {
      const li = el("li", r.title || "(no title)");
      const where = [r.database, r.source, r.round].filter(Boolean).join(" · ");
      li.append(el("span", ` · ${where}`, "muted"));
      ul.append(li);
    }
    details.append(ul);
    $("record-history").before(details);
  }

  function showIds(data) {
    const ids = $("record-ids");
    ids.replaceChildren();
    if (data.doi) {
      const span = el("span", "DOI ");
      const a = el("a", data.doi);
      a.href = `https://doi.org/${data.doi}`;
      a.rel = "noreferrer noopener";
      a.target = "_blank";
      span.append(a);
      ids.append(span);
    }
    if (data.pmid) ids.append(el("span", `PMID ${data.pmid}`));
  }

  function showCard(data) {
    if (!data || data.done || !card) {
      // nothing left (or the page had no card): the page itself says what to do next
      window.location.assign(pageUrl());
      return false;
    }
    if (stage === "full_text") {
      // the full-text panel (PDF page, retrieval state) is the server's: load the page
      window.location.assign(`${pageUrl()}&record=${encodeURIComponent(data.record_key)}`);
      return false;
    }
    card.dataset.record = data.record_key;
    $("record-key").value = data.record_key;
    segments($("record-title"), data.title_segments, document.createTextNode("(no title)"));
    $("record-byline").textContent = data.byline || "No authors given"; // the server's byline
    $("record-venue").textContent = [data.year, data.venue].filter(Boolean).join(" · ");
    showIds(data);
    segments($("record-abstract"), data.abstract_segments, el("span", "No abstract.", "muted"));
    const kw = $("record-keywords");
    kw.textContent = `Keywords: ${(data.keywords || []).join("; ")}`;
    kw.hidden = !(data.keywords || []).length;
    if ($("marks-include") && data.marks) {
      $("marks-include").textContent = String(data.marks.include);
      $("marks-exclude").textContent = String(data.marks.exclude);
    }
    showMembers(data.members);
    showHistory(data.decisions, data.record_key);
    showProgress(data.progress);
    if (data.order && $("order-line")) $("order-line").textContent = `Order: ${data.order.label}`;
    if (data.order && $("model-line")) $("model-line").textContent = modelText(data.order.model);
    if (reason) reason.value = "";
    if (note) note.value = "";
    fail("");
    showFromTitle();
    card.focus({ preventScroll: true });
    return true;
  }

  // The record after the one on screen is fetched while the reviewer reads (skipping the
  // current one and those whose decisions are on their way), so a decision shows it at once;
  // the decision is saved meanwhile, in order, and the counts follow when it is saved. A
  // decision that cannot be saved brings its record back with the reason.
  let current = card ? card.dataset.record : "";
  let prefetched = null; // { after: key on screen when fetched, data: the card }
  let saving = Promise.resolve();
  const pending = new Set();

  function nextUrl(skip) {
    const url = new URL(`${api}/next`, window.location.origin);
    for (const [k, v] of Object.entries(nextParams())) url.searchParams.set(k, v);
    for (const key of skip) if (key) url.searchParams.append("skip", key);
    return url;
  }

  async function fetchNext(skip) {
    const response = await fetch(nextUrl(skip), { headers: { accept: "application/json" } });
    return { ok: response.ok, body: await response.json() };
  }

  async function prefetch() {
    if (stage === "full_text" || !current) return;
    const after = current;
    try {
      const r = await fetchNext([after, ...pending]);
      if (!r.ok || current !== after) return;
      prefetched = { after, data: r.body };
      if (!pending.size) showProgress(r.body.progress); // counts as saved
    } catch { /* the next decision fetches it itself */ }
  }

  function shown(data) {
    if (!showCard(data)) return false;
    current = data.record_key;
    prefetched = null;
    prefetch();
    return true;
  }

  async function run(work) {
    if (busy) return;
    busy = true;
    root.setAttribute("aria-busy", "true");
    try { await work(); } catch {
      fail("Lost contact with the server. Your last decision may not be saved; reload the page.");
    } finally {
      busy = false;
      root.removeAttribute("aria-busy");
    }
  }

  async function bringBack(key, message) {
    // the record still on screen (always so at full text, whose cards load as pages) stays;
    // another is brought back. Either way the reason is said beside the form
    if (key !== current) {
      const back = await getJson(`${api}/card`, { stage, record_key: key });
      if (back.ok) shown(back.body);
    }
    fail(message);
  }

  function save(key, body, title) {
    pending.add(key);
    const started = performance.now();
    const done = saving.then(() => postJson(`${api}/decisions`, body));
    saving = done.then(() => undefined, () => undefined);
    return done.then((r) => {
      pending.delete(key);
      root.dataset.saveMs = (performance.now() - started).toFixed(1);
      if (!r.ok) throw new Error(r.body.message || "the server refused it");
      return r;
    }, (err) => {
      pending.delete(key);
      throw err;
    }).catch(async (err) => {
      const why = err instanceof Error ? err.message : "no answer from the server";
      await bringBack(key, `Your decision on “${title.slice(0, 80)}” was not saved (${why}). It is shown again: decide again.`);
      throw err;
    });
  }

  function decide(verdict) {
    if (!card || busy || !form) return; // a reader's page has no decision form
    if (verdict === "exclude" && stage === "full_text" && !reason.value) {
      fail("Choose a reason for excluding this record at full text.");
      reason.setAttribute("aria-invalid", "true");
      reason.focus();
      return;
    }
    const started = performance.now();
    const key = current;
    const title = $("record-title").textContent;
    const body = { stage, record_key: key, verdict, reason: reason.value, note: note.value };
    reason.removeAttribute("aria-invalid");
    const saved = save(key, body, title);
    const swapped = () => {
      swaps += 1;
      root.dataset.swaps = String(swaps);
      root.dataset.swapMs = (performance.now() - started).toFixed(1);
      // a long title is cut at a word and says so (never "…of a Prospe.")
      const short = title.length > 120 ? `${title.slice(0, 119).replace(/\s+\S*$/, "")}…` : title;
      say(`${PAST[verdict]}: ${short}${/[.!?…]$/.test(short) ? "" : "."} Press u to undo.`);
    };
    const ready = prefetched && prefetched.after === key && !prefetched.data.done ? prefetched.data : null;
    if (ready) { // shown at once; the counts follow the save
      if (shown(ready)) swapped();
      saved.then(() => { if (!pending.size) prefetch(); }, () => undefined);
      return;
    }
    run(async () => {
      try { await saved; } catch { return; }
      const r = await fetchNext([...pending]);
      if (!r.ok) { fail(r.body.message || "The next record could not be loaded; reload the page."); return; }
      if (shown(r.body)) swapped();
    });
  }

  function undo() {
    run(async () => {
      await saving;
      const r = await postJson(`${api}/undo`, { stage });
      if (!r.ok) { fail(r.body.message || "Nothing to undo."); return; }
      const back = await getJson(`${api}/card`, { stage, record_key: r.body.record_key });
      if (!back.ok) { fail(back.body.message || "The record could not be loaded."); return; }
      if (shown(back.body)) say("Your last decision was undone; it stays in the history. Decide again.");
    });
  }

  function next() { // pass over the record on screen for now: it stays in the queue
    run(async () => {
      const ready = prefetched && prefetched.after === current ? prefetched.data : null;
      const r = ready ? { ok: true, body: ready } : await fetchNext([current, ...pending]);
      if (!r.ok) { fail(r.body.message || "The next record could not be loaded."); return; }
      if (r.body.done) { say("No other record is waiting for you: this is the last one."); return; }
      if (shown(r.body)) say("");
    });
  }

  if (form) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const verdict = event.submitter && event.submitter.value;
      if (verdict) decide(verdict);
    });
  }
  const undoForm = $("undo-form");
  if (undoForm) undoForm.addEventListener("submit", (event) => { event.preventDefault(); undo(); });
  const nextLink = $("next-link");
  if (nextLink) nextLink.addEventListener("click", (event) => { event.preventDefault(); next(); });
  if (reason) reason.addEventListener("change", () => { reason.removeAttribute("aria-invalid"); fail(""); });

  const openKeys = () => { if (dialog && !dialog.open) dialog.showModal(); };
  const keysButton = $("keys-button");
  if (keysButton) keysButton.addEventListener("click", openKeys);

  const actions = {
    i: () => decide("include"),
    e: () => decide("exclude"),
    m: () => decide("maybe"),
    u: () => undo(),
    n: () => next(),
    f: () => { const link = $("open-fulltext"); if (link) link.click(); },
    r: () => { if (reason) reason.focus(); },
    "?": openKeys,
  };
  let afterG = false; // "g x" goes to a page (keys.js): the x is not a screening key
  // capture phase: these keys are the page's, before the workspace's own shortcuts
  window.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (document.querySelector("dialog[open]")) return;
    if (afterG) { afterG = false; return; }
    if (event.key === "g") { afterG = true; return; }
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    event.stopPropagation();
    action();
  }, true);
  prefetch();
  document.documentElement.dataset.screenReady = "1";
}
