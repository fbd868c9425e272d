// Search page: a search started from the form runs live. The page posts the form to
// /api/v1/search/live, follows /api/v1/search/live/<id>/events (text/event-stream, same
// origin) and shows each lane as it starts and finishes (status, totals, message); the
// finished search opens in the ordinary result view. "Cancel search" (or x) stops the lanes;
// the results of the last successful search stay, with their notice. Every value is
// inserted as text.
import { csrfToken, followJob } from "./api.js";
import { line, plural } from "./dom.js";
import { addShortcut } from "./keys.js";

function formBody(form) {
  const fd = new FormData(form);
  const body = {
    q: String(fd.get("q") || ""),
    mode: String(fd.get("mode") || "keyword"),
    provider: fd.getAll("provider").map(String),
    field: String(fd.get("field") || "all"),
    type: String(fd.get("type") || "all"),
    sort: String(fd.get("sort") || "relevance"),
    open_access: fd.has("open_access"),
    include_retracted: fd.has("include_retracted"),
    subject_vocabulary: fd.getAll("subject_vocabulary").map(String),
    subject_id: fd.getAll("subject_id").map(String),
    subject_label: fd.getAll("subject_label").map(String),
  };
  for (const name of ["year_from", "year_to"]) {
    const v = String(fd.get(name) || "").trim();
    if (v) body[name] = Number(v);
  }
  return body;
}

// the Study the search is for (the form's hidden "study", from "Search for more") goes
// along to the result view, which then offers "Add to this Study"
function forStudy(url, form) {
  const study = new FormData(form).get("study");
  if (!url || !study) return url;
  const to = new URL(url, window.location.origin);
  to.searchParams.set("study", String(study));
  return to.pathname + to.search;
}

function laneBox(lane) {
  const box = document.createElement("div");
  const kind = { running: "running", ok: "ok", cancelled: "cancelled" }[lane.status] || "bad";
  box.className = `lane ${kind}`;
  box.dataset.lane = lane.lane;
  const h = document.createElement("h3");
  h.textContent = lane.label || lane.lane;
  box.append(h);
  const p = document.createElement("p");
  const strong = document.createElement("strong");
  strong.textContent = lane.state || lane.status;
  p.append(strong);
  if (lane.status === "ok") {
    const total = lane.total === null ? "unknown" : Number(lane.total).toLocaleString("en");
    p.append(` · ${lane.returned} returned · provider total ${total}`);
  }
  box.append(p);
  if (lane.notice || lane.message) line(box, lane.notice || lane.message);
  return box;
}

export function installLive() {
  const form = document.getElementById("search-form");
  const panel = document.getElementById("live-search");
  const status = document.getElementById("live-status");
  const lanes = document.getElementById("live-lanes");
  const cancel = document.getElementById("live-cancel");
  const check = document.getElementById("q-check");
  const heading = document.getElementById("live-h");
  const stale = document.getElementById("stale");
  if (!form || !panel || typeof window.EventSource !== "function") return; // the ordinary GET form
  let current = null; // { id, source, final }

  function show(view) {
    lanes.replaceChildren(...view.lanes.map(laneBox));
    const n = view.lanes.length;
    if (view.state === "running") {
      status.textContent = `Searching: ${view.finished} of ${plural(n, "database")} finished.`;
    } else if (view.state === "done") {
      status.textContent = `${n === 1 ? "The database" : `All ${n} databases`} finished; opening the results…`;
    } else if (view.state === "cancelled") {
      status.textContent = view.message || "The search was cancelled.";
    } else {
      status.textContent = view.hint || `The search failed: ${view.message || "unknown reason"}`;
    }
    heading.textContent = {
      running: "Search in progress", done: "Search finished", cancelled: "Search cancelled",
    }[view.state] || "Search failed";
    cancel.hidden = view.state !== "running";
    panel.dataset.state = view.state;
    if (view.state !== "running") finish(view);
  }

  function finish(view) {
    if (!current || current.final) return;
    current.final = true;
    current.source.close();
    if (view.state === "done" && current.url) {
      window.location.assign(current.url);
      return;
    }
    if (stale && form.dataset.appliedQ) stale.hidden = false; // the last successful results stay
  }

  async function stop() {
    if (!current || current.final) return;
    const { id } = current;
    cancel.disabled = true;
    try {
      const response = await fetch(`/api/v1/search/live/${encodeURIComponent(id)}/cancel`, {
        method: "POST",
        headers: { "x-csrf-token": csrfToken(), accept: "application/json" },
      });
      const view = await response.json();
      if (response.ok && current && current.id === id) show(view);
    } catch {
      status.textContent = "The search could not be cancelled (the server did not answer).";
    } finally {
      cancel.disabled = false;
    }
  }

  async function start() {
    if (current && !current.final) { current.source.close(); current.final = true; }
    let response;
    let data;
    try {
      response = await fetch("/api/v1/search/live", {
        method: "POST",
        body: JSON.stringify(formBody(form)),
        headers: { "content-type": "application/json", "x-csrf-token": csrfToken(), accept: "application/json" },
      });
      data = await response.json();
    } catch {
      check.textContent = "The search could not be started (the server did not answer).";
      return;
    }
    if (!response.ok) {
      check.textContent = data.hint ? `The search was not run. ${data.hint}` : `The search was not run: ${data.message || response.status}`;
      check.className = "check bad";
      return;
    }
    panel.hidden = false;
    const source = new EventSource(`/api/v1/search/live/${encodeURIComponent(data.id)}/events`);
    current = { id: data.id, url: forStudy(data.result_url, form), source, final: false };
    show(data);
    source.addEventListener("progress", (e) => show(JSON.parse(e.data)));
    source.addEventListener("end", () => source.close());
    source.addEventListener("error", () => {
      // CONNECTING: the stream ended after its time (or the network failed) and
      // EventSource reconnects by itself. CLOSED: the server refused the stream (a 502 or
      // 503 on the way, say): the page reads the search's state instead, through the
      // server's hiccups, until it ends
      if (source.readyState === EventSource.CLOSED && current && current.source === source && !current.final) {
        poll(current);
      }
    });
  }

  async function poll(followed) {
    const gone = "Progress is no longer available; search again.";
    const here = () => current === followed && !followed.final;
    await followJob(`/api/v1/search/live/${encodeURIComponent(followed.id)}`, {
      first: 0,
      interval: 1000,
      say: (text, retry) => {
        if (!here()) return;
        status.textContent = text;
        if (retry) status.append(" ", retry);
      },
      lost: gone,
      running: (view) => here() && view.state === "running",
      onProgress: show,
      onEnd: (view) => { if (here()) show(view); },
      onRefused: () => {
        if (!here()) return;
        status.textContent = gone;
        followed.final = true;
      },
    });
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    start();
  });
  cancel.addEventListener("click", stop);
  addShortcut("x", "Cancel the running search", stop);
}
