// Report wizard: tabs over the form's sections (without JS every section shows), the
// "before it runs" plan checked again on every change, the chosen layout kept in this
// browser under the key the report itself reads.
import { csrfToken, followJob } from "./api.js";
import { followScope } from "./dom.js";

const LAYOUT_KEY = "litdesk.report.layout";

function formBody(form) {
  const data = new FormData(form);
  const scope = data.get("scope");
  const whole = scope === "library";
  const study = scope === "study" ? String(data.get("study") || "") || null : null;
  return {
    papers: scope === "papers" ? data.getAll("papers") : [],
    whole_library: whole,
    study,
    questions: String(data.get("questions") || "").split("\n").map((q) => q.trim()).filter(Boolean),
    summary: data.get("summary") || "none",
    synthesis: data.get("synthesis") === "on",
    layout: data.get("layout") || "column",
    language: String(data.get("language") || "").trim() || null,
    detail_mode: data.get("detail_mode") || "per-paper",
    labels: data.get("labels") || "en",
    output: data.get("output") || "html",
  };
}

// The build button says what it will do: build the report, or ask in the chat.
function buttonWords(form) {
  const chat = new FormData(form).get("output") === "chat";
  document.getElementById("build").textContent = chat ? "Ask in the chat" : "Build the report";
  return chat;
}

function installTabs() {
  const list = document.getElementById("wizard-tabs");
  const tabs = [...list.querySelectorAll('[role="tab"]')];
  const select = (tab) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    }
  };
  for (const tab of tabs) tab.addEventListener("click", () => select(tab));
  list.addEventListener("keydown", (event) => {
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    const next = event.key === "ArrowRight" ? (i + 1) % tabs.length : event.key === "ArrowLeft" ? (i - 1 + tabs.length) % tabs.length : -1;
    if (next < 0) return;
    select(tabs[next]);
    tabs[next].focus();
    event.preventDefault();
  });
  list.hidden = false;
  select(tabs[0]);
}

export function installWizard() {
  const form = document.getElementById("report-wizard");
  followScope(form);
  installTabs();
  const notes = document.getElementById("plan-notes");
  const model = document.getElementById("plan-model");
  let pending = null;
  async function replan() {
    if (pending) pending.abort();
    pending = new AbortController();
    try {
      const response = await fetch("/api/v1/reports/plan", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrfToken(), accept: "application/json" },
        body: JSON.stringify(formBody(form)),
        signal: pending.signal,
      });
      const body = await response.json();
      notes.replaceChildren();
      const item = (text, cls) => {
        const li = document.createElement("li");
        li.textContent = text;
        li.className = cls;
        notes.append(li);
      };
      if (!response.ok) { item(body.message || "These choices cannot be built.", "notice error"); return; }
      model.textContent = body.model;
      for (const e of body.extractive) item(`Extractive (no model): ${e}`, "notice warn");
      for (const e of body.not_made) item(`Cannot be made: ${e}`, "notice warn");
      for (const e of body.notes) item(e, "notice");
    } catch (err) {
      if (err.name !== "AbortError") throw err;
    }
  }
  form.addEventListener("change", () => { buttonWords(form); replan(); });
  buttonWords(form);
  form.addEventListener("submit", (event) => {
    if (form.dataset.busy === "1") { event.preventDefault(); return; }
    form.dataset.busy = "1";
    const layout = new FormData(form).get("layout") || "column";
    try { window.localStorage.setItem(LAYOUT_KEY, layout); } catch (e) { /* storage may be off */ }
    document.getElementById("build").disabled = true;
    document.getElementById("build-status").textContent = buttonWords(form)
      ? "Asking the questions in the chat… the chat opens with them."
      : "Building the report… it opens when it is ready.";
  });
}

// The build job's page: poll the job, show the steps done and the step running; open the
// report when it is written.
export function installJob() {
  const root = document.getElementById("report-job");
  const id = root.dataset.job;
  const status = document.getElementById("job-status");
  const line = document.getElementById("job-progress");
  const bar = document.getElementById("job-bar");
  const message = document.getElementById("job-message");
  const result = document.getElementById("job-result");
  const cancel = document.getElementById("job-cancel");
  const show = (job) => {
    status.textContent = job.status;
    root.dataset.status = job.status;
    const total = job.total == null ? "?" : String(job.total);
    line.textContent = `${job.done} of ${total} steps done${job.current ? ` · now: ${job.current}` : ""}`;
    bar.max = job.total || 1;
    bar.value = job.done;
    message.textContent = job.message || "";
    message.className = job.status === "failed" ? "notice error" : "muted";
  };
  const active = (job) => job.status === "queued" || job.status === "running";
  if (!active(root.dataset)) return;
  followJob(`/api/v1/reports/jobs/${encodeURIComponent(id)}`, {
    first: 0,
    interval: 700,
    say: (text, retry) => {
      message.replaceChildren(text);
      message.className = retry ? "notice error" : "muted";
      if (retry) message.append(" ", retry);
    },
    lost: "Lost contact with the server; the report is built there all the same. Refresh the page.",
    running: active,
    onProgress: show,
    onEnd: (job) => {
      show(job);
      if (job.status === "done" && job.result) {
        document.getElementById("job-open").href = job.result.open;
        const down = document.getElementById("job-download");
        down.href = job.result.download;
        down.title = job.result.file_name; // the name in full; the button says what it does
        result.hidden = false;
        if (cancel) cancel.hidden = true;
        window.location.assign(job.result.open);
        return;
      }
      if (cancel) cancel.hidden = true;
    },
    onRefused: (r) => { message.textContent = r.body.message || "The job cannot be read."; },
  });
}
