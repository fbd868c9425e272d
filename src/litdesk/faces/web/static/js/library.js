// PDF library page: drop PDFs (each sent as its own upload), watch the index job (polling
// /api/v1/jobs/{id}), cancel it, look up a PDF's DOI/arXiv id, check the models. Without
// script the page's forms do the same. Every value is inserted as text.
import { csrfToken, followJob, getJson } from "./api.js";
import { line, plural } from "./dom.js";
import { refresh } from "./swap.js";

// the regions of the page a finished job or an upload changes
const REGIONS = ["lib-counts", "sources", "files"];

const POLL_MS = 1000;

function jobText(job) {
  let text = `Index job ${job.status}`;
  if (!job.owner) text += " (started by another account)";
  if (job.cancel_requested && job.active) text += " (cancelling)";
  text += `: ${job.done}`;
  if (job.total !== null) text += ` of ${job.total}`;
  text += (job.total ?? job.done) === 1 ? " file" : " files";
  if (job.current) text += ` · latest: ${job.current}`;
  if (job.rate) text += ` · ${job.rate.toFixed(1)} pages/s`;
  if (job.message) text += ` · ${job.message}`;
  return text;
}

async function post(path, body, json) {
  const headers = { "x-csrf-token": csrfToken(), accept: "application/json" };
  if (json) headers["content-type"] = "application/json";
  const response = await fetch(path, { method: "POST", body, headers });
  let data = {};
  try {
    data = await response.json();
  } catch {
    data = { message: `HTTP ${response.status}` };
  }
  return { ok: response.ok, status: response.status, data };
}

function installJob() {
  const section = document.getElementById("job");
  const status = document.getElementById("job-status");
  let watching = null;

  function show(job) {
    status.replaceChildren();
    const kind = job.status === "failed" ? "notice error" : job.status === "done" ? "notice ok" : "notice";
    const p = line(status, jobText(job), kind);
    p.id = "job-line";
    const bar = document.createElement("progress");
    bar.id = "job-progress";
    bar.setAttribute("aria-label", "Files indexed");
    bar.max = job.total || 1;
    bar.value = job.total ? job.done : job.active ? 0 : 1;
    status.append(bar);
    if (!job.active && job.result) {
      const r = job.result;
      const resumed = job.attempts > 1 ? ` · resumed ${plural(job.attempts - 1, "time")}` : "";
      line(status, `${r.indexed} indexed in all, ${r.excluded.length} excluded, ${r.pages} pages${resumed}`, "muted").id = "job-result";
      for (const ex of r.excluded) line(status, `excluded: ${ex.file} (${ex.code}): ${ex.reason}`, "muted");
      const again = document.createElement("a");
      again.href = "/library";
      again.textContent = "Reload the list";
      again.id = "job-reload";
      status.append(again);
    }
    section.dataset.active = job.active ? "yes" : "no";
    section.dataset.status = job.status;
    const cancel = document.getElementById("job-cancel");
    if (cancel) cancel.hidden = !job.active || !job.owner; // another account's: progress only
  }

  async function poll(id) {
    if (watching) watching.abort(); // the newest job is the one followed
    const mine = new AbortController();
    watching = mine;
    section.dataset.job = id;
    try {
      await followJob(`/api/v1/jobs/${id}`, {
        first: 0,
        interval: POLL_MS,
        signal: mine.signal,
        say: (text, retry) => {
          let note = document.getElementById("job-contact");
          if (!note) {
            note = line(status, "", "notice");
            note.id = "job-contact";
          }
          note.replaceChildren(text);
          if (retry) note.append(" ", retry);
        },
        running: (job) => job.active,
        onProgress: show,
        onEnd: (job) => {
          show(job);
          // the job ended: the counts, the sources and the table show what it did
          refresh(REGIONS, `Indexing ${job.status}: the list of PDFs is up to date.`);
        },
        onRefused: (r) => line(status, r.body.message || "The job cannot be read.", "notice error"),
      });
    } catch (e) {
      if (e.name !== "AbortError") throw e; // another job is followed now
    }
  }

  const cancel = document.getElementById("job-cancel");
  if (cancel) {
    cancel.addEventListener("submit", async (e) => {
      e.preventDefault();
      const id = section.dataset.job;
      const res = await post(`/api/v1/jobs/${id}/cancel`, null, false);
      if (res.ok) show(res.data);
      else line(status, res.data.message || "The job could not be cancelled.", "notice error");
    });
  }
  const now = document.getElementById("index-now");
  now.addEventListener("submit", async (e) => {
    e.preventDefault();
    const res = await post("/api/v1/library/index", null, false);
    if (res.ok) poll(res.data.id);
    else line(status, res.data.message || "Indexing could not start.", "notice error");
  });
  if (section.dataset.job && section.dataset.active === "yes") poll(section.dataset.job);
  return { poll };
}

function installUploads(job) {
  const zone = document.getElementById("pdf-drop");
  const form = document.getElementById("upload-form");
  const input = document.getElementById("pdf-files");
  const report = document.getElementById("upload-report");

  async function send(files) {
    if (!files.length) return;
    report.replaceChildren();
    let jobId = null;
    for (const f of files) {
      const note = line(report, `${f.name}: uploading…`, "muted");
      const body = new FormData();
      body.append("files", f, f.name);
      let res;
      try {
        res = await post("/api/v1/library/uploads", body, false);
      } catch {
        note.textContent = `${f.name}: the upload could not be sent.`;
        note.className = "notice error";
        continue;
      }
      if (!res.ok) {
        note.textContent = `${f.name} refused (${res.data.code || res.status}): ${res.data.message || ""}`;
        note.className = "notice error";
        continue;
      }
      for (const s of res.data.stored) {
        const same = s.same_content_as ? ` — same content as ${s.same_content_as}: indexed once` : "";
        note.textContent = `${s.file}: stored (${s.bytes.toLocaleString("en")} bytes)${same}`;
        note.className = "notice ok";
      }
      for (const r of res.data.refused) {
        note.textContent = `${r.file} refused (${r.code}): ${r.message}`;
        note.className = "notice error";
      }
      if (res.data.job) jobId = res.data.job.id;
    }
    if (jobId) job.poll(jobId);
    refresh(REGIONS, "");  // the new files are listed (waiting) before the job reads them
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    send([...input.files]);
  });
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    send([...e.dataTransfer.files]);
  });
}

function installAdoption() {
  for (const form of document.querySelectorAll("form.adopt-form")) {
    if (form.dataset.bound) continue; // a swapped table brings new forms; bind each once
    form.dataset.bound = "1";
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const out = form.parentElement.querySelector("output.adopt-result");
      const file = form.querySelector('input[name="file"]').value;
      out.textContent = "looking up…";
      const res = await post("/api/v1/library/adopt", JSON.stringify({ file }), true);
      if (!res.ok) {
        out.textContent = `lookup refused: ${res.data.message || res.status}`;
        return;
      }
      const a = res.data;
      out.textContent = a.adopted ? `adopted “${a.title}” (${a.lookup})` : `not adopted — ${a.reason}`;
      out.dataset.adopted = a.adopted ? "yes" : "no";
    });
  }
}

function installModels() {
  const form = document.getElementById("models-check");
  const list = document.getElementById("model-roles");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    const res = await getJson("/api/v1/library/models", { check: "true" });
    button.disabled = false;
    list.replaceChildren();
    for (const r of res.body.roles || []) {
      const li = document.createElement("li");
      li.dataset.role = r.role;
      const strong = document.createElement("strong");
      strong.textContent = r.role;
      li.append(strong, `: ${r.backend}${r.model ? ` · ${r.model}` : ""} — ${r.detail}`);
      if (r.options.length) {
        const ul = document.createElement("ul");
        for (const o of r.options) {
          const item = document.createElement("li");
          item.textContent = o;
          ul.append(item);
        }
        li.append(ul);
      }
      list.append(li);
    }
  });
}

const job = installJob();
installUploads(job);
installAdoption();
document.addEventListener("litdesk:swapped", installAdoption);
installModels();
document.documentElement.dataset.libraryReady = "1";
