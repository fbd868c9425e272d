// Deduplication review page: follow a running job (progress, cancel), decide pairs with
// the keyboard (m merge, k keep separate, s skip, u undo) or the buttons, withdraw a
// decision from the history after asking. Every write goes to /api/v1 with the CSRF
// header; every value shown is inserted as text. Without this script the forms still work.
import { csrfToken, followJob, getJson } from "./api.js";
import { plural } from "./dom.js";

const STATE_LABELS = {
  waiting: "waiting for you",
  merge: "merged (your decision)",
  distinct: "kept separate (your decision)",
};

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

function installJob() {
  const box = document.getElementById("job");
  if (!box) return;
  const id = box.dataset.job;
  const study = box.dataset.study;
  const status = document.getElementById("job-status");
  const bar = document.getElementById("job-progress");
  const cancel = document.getElementById("cancel-form");
  cancel.addEventListener("submit", async (e) => {
    e.preventDefault();
    status.textContent = "Cancelling…";
    await postJson(`/api/v1/dedup-jobs/${encodeURIComponent(id)}/cancel`);
  });
  followJob(`/api/v1/dedup-jobs/${encodeURIComponent(id)}`, {
    first: 200,
    interval: 300,
    say: status,
    running: (job) => job.state === "running",
    onProgress: (job) => {
      const read = job.total ? ` (${job.done} of ${job.total} sources read)` : "";
      status.textContent = `Running: ${job.stage}${read}${job.cancel_requested ? " · cancelling" : ""}`;
      bar.max = Math.max(1, job.total);
      bar.value = job.done;
    },
    onEnd: () => {
      window.location.assign(`/study/${encodeURIComponent(study)}/dedup?job=${encodeURIComponent(id)}`);
    },
    onRefused: (r) => { status.textContent = r.body.message || "The job is gone; refresh the page."; },
  });
}

function installRun() {
  const form = document.getElementById("run-form");
  if (!form) return;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const study = document.querySelector("[data-study]")?.dataset.study ||
      decodeURIComponent(window.location.pathname.split("/")[2]);
    const button = document.getElementById("run-dedup");
    button.disabled = true;
    const r = await postJson(`/api/v1/studies/${encodeURIComponent(study)}/dedup/runs`);
    if (!r.ok) {
      button.disabled = false;
      const msg = document.getElementById("review-message") || document.getElementById("no-run");
      if (msg) msg.textContent = r.body.message || "The run could not be started.";
      return;
    }
    window.location.assign(`/study/${encodeURIComponent(r.body.study_id)}/dedup?job=${encodeURIComponent(r.body.id)}`);
  });
}

// "5 Dec 2026, 01:14", as the server's `when` filter writes an older date
function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}

function renderHistory(entries, study) {
  const body = document.getElementById("history-rows");
  if (!body) return;
  body.replaceChildren();
  for (const e of entries) {
    const tr = document.createElement("tr");
    tr.dataset.seq = String(e.seq);
    const cells = [
      ["#", "num", String(e.seq)], ["When", "nowrap", when(e.created_at)],
      ["Who", "nowrap", e.via ? `${e.by} (${e.via})` : e.by], ["What", "", e.what],
    ];
    for (const [label, kind, text] of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      td.dataset.label = label;
      if (kind) td.className = kind;
      tr.append(td);
    }
    const action = document.createElement("td");
    action.dataset.label = "Action";
    if (e.in_force) {
      const form = document.createElement("form");
      form.method = "post";
      form.action = `/study/${encodeURIComponent(study)}/dedup/undo`;
      form.className = "undo-history inline";
      for (const [name, value] of [["csrf_token", csrfToken()], ["seq", String(e.seq)]]) {
        const input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        input.value = value;
        form.append(input);
      }
      const button = document.createElement("button");
      button.type = "submit";
      button.className = "btn-link";
      button.textContent = `Withdraw #${e.seq}`;
      form.append(button);
      action.append(form);
    }
    tr.append(action);
    body.append(tr);
  }
  const h = document.getElementById("history-h");
  if (h) h.textContent = `History (${plural(entries.length, "entry", "entries")} shown)`;
}

function installReview() {
  const review = document.getElementById("review");
  if (!review) return;
  const run = review.dataset.run;
  const study = review.dataset.study;
  const pairs = () => Array.from(review.querySelectorAll("article.pair"));
  const message = document.getElementById("review-message");
  const waiting = document.getElementById("waiting");
  const undoStack = []; // {seq, no} of the decisions made on this page, newest last
  let current = null;
  // the run's waiting pairs (every page) as the server counted them, and this page's share:
  // a decision here moves the run's count by as much as it moves the page's
  const waitingHere = () => pairs().filter((a) => a.dataset.state === "waiting").length;
  const waitingRun = Number(waiting.dataset.waiting);
  const waitingPage = waitingHere();

  const say = (text) => { message.textContent = text; };
  const select = (article) => {
    if (!article) return;
    if (current) current.classList.remove("current");
    current = article;
    current.classList.add("current");
    current.focus();
  };
  const byNo = (no) => document.getElementById(`pair-${no}`);
  const nextWaiting = (from) => {
    const all = pairs();
    const start = from ? all.indexOf(from) + 1 : 0;
    for (let i = 0; i < all.length; i += 1) {
      const a = all[(start + i) % all.length];
      if (a.dataset.state === "waiting" && a !== from) return a;
    }
    return null;
  };
  const setState = (article, state, seq) => {
    article.dataset.state = state;
    article.dataset.seq = seq ? String(seq) : "";
    article.querySelector(".state").textContent = STATE_LABELS[state];
    const undo = article.querySelector("form.undo-pair");
    undo.hidden = !seq;
    undo.querySelector('input[name="seq"]').value = seq ? String(seq) : "";
    const left = Math.max(0, waitingRun - (waitingPage - waitingHere()));
    waiting.textContent = left.toLocaleString("en-GB");
  };
  const refreshHistory = async () => {
    const r = await getJson(`/api/v1/studies/${encodeURIComponent(study)}/dedup`, {});
    if (r.ok) renderHistory(r.body.history, study);
  };
  const decide = async (article, decision) => {
    if (!article) return;
    if (decision === "merge" && article.dataset.mergeable !== "yes") {
      say("This pair is never merged: its records carry conflicting identifiers. Keep it separate (k) or skip it (s).");
      return;
    }
    const no = Number(article.dataset.no);
    const r = await postJson(`/api/v1/studies/${encodeURIComponent(study)}/dedup/decisions`,
      { run_id: run, pair: no, decision });
    if (!r.ok) { say(`Not recorded: ${r.body.message || r.status}`); return; }
    setState(article, r.body.state, r.body.seq);
    if (r.body.new) undoStack.push({ seq: r.body.seq, no });
    say(`Pair ${no + 1}: ${STATE_LABELS[r.body.state]}. Press u to undo.`);
    await refreshHistory();
    const next = nextWaiting(article);
    if (next) select(next); else say(`Pair ${no + 1}: ${STATE_LABELS[r.body.state]}. No pair on this page is waiting.`);
  };
  const withdraw = async (seq) => {
    const r = await postJson(`/api/v1/studies/${encodeURIComponent(study)}/dedup/undo`, { seq });
    if (!r.ok) { say(`Not withdrawn: ${r.body.message || r.status}`); return false; }
    const article = r.body.pair === null ? null : byNo(r.body.pair);
    if (article) { setState(article, "waiting", null); select(article); }
    say(`Decision #${seq} withdrawn; the pair waits for you again.`);
    await refreshHistory();
    return true;
  };
  const undoLast = async () => {
    while (undoStack.length) {
      const last = undoStack.pop();
      const article = byNo(last.no);
      if (article && article.dataset.seq === String(last.seq)) { await withdraw(last.seq); return; }
    }
    say("Nothing to undo from this page; withdraw earlier decisions in the history.");
  };
  const skip = () => {
    const all = pairs();
    const i = current ? all.indexOf(current) : -1;
    if (i + 1 < all.length) { select(all[i + 1]); return; }
    const next = document.getElementById("next-page");
    if (next) { window.location.assign(next.getAttribute("href")); return; }
    say("That was the last pair.");
    if (all.length) select(all[0]);
  };

  for (const article of pairs()) {
    article.addEventListener("click", () => { if (current !== article) select(article); });
    article.querySelector("form.decide").addEventListener("submit", (e) => {
      e.preventDefault();
      const decision = e.submitter ? e.submitter.value : "distinct";
      select(article);
      decide(article, decision);
    });
    article.querySelector("form.undo-pair").addEventListener("submit", (e) => {
      e.preventDefault();
      if (article.dataset.seq) withdraw(Number(article.dataset.seq));
    });
  }

  const dialog = document.getElementById("confirm-undo");
  document.getElementById("history").addEventListener("submit", (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("undo-history")) return;
    e.preventDefault();
    const seq = Number(form.querySelector('input[name="seq"]').value);
    const row = form.closest("tr");
    document.getElementById("confirm-undo-text").textContent =
      `#${seq}: ${row ? row.children[3].textContent : ""}`;
    dialog.returnValue = "";
    dialog.showModal();
    dialog.addEventListener("close", async () => {
      if (dialog.returnValue === "yes") await withdraw(seq);
    }, { once: true });
  });

  let afterG = false; // "g x" goes to a page (keys.js): not a review key
  document.addEventListener("keydown", (event) => {
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (dialog.open) return;
    if (afterG) { afterG = false; return; }
    if (event.key === "g") { afterG = true; return; }
    const actions = {
      m: () => decide(current, "merge"),
      k: () => decide(current, "distinct"),
      s: skip,
      u: undoLast,
    };
    const act = actions[event.key];
    if (!act) return;
    event.preventDefault();
    if (!current && event.key !== "u") { select(nextWaiting(null) || pairs()[0]); if (event.key === "s") return; }
    act();
  });

  const fromHash = window.location.hash.startsWith("#pair-") ? document.getElementById(window.location.hash.slice(1)) : null;
  select(fromHash || nextWaiting(null) || pairs()[0]);
}

function listShortcuts() {
  const list = document.querySelector("#help dl");
  if (!list) return;
  for (const [key, what] of [["m", "Merge the current pair"], ["k", "Keep the current pair separate"],
    ["s", "Skip to the next pair"], ["u", "Undo your last decision on this page"]]) {
    const dt = document.createElement("dt");
    const kbd = document.createElement("kbd");
    kbd.textContent = key;
    dt.append(kbd);
    const dd = document.createElement("dd");
    dd.textContent = `${what} (deduplication review)`;
    list.append(dt, dd);
  }
}

installJob();
installRun();
installReview();
listShortcuts();
document.documentElement.dataset.dedupReady = "1";
