// Study page: drag and drop (or choose) export files; they are posted to /api/v1/imports and
// the report lists each imported file (format, encoding, records, notices by kind) beside each
// refused one with its reason. A large import is answered 202 with its job: the page follows
// it with /api/v1/jobs/{id} (progress per file) and shows the same report from the job's
// result. Every value is inserted as text.
import { csrfToken, followJob } from "./api.js";
import { line, plural } from "./dom.js";
import { refresh } from "./swap.js";

// the Study page's regions an import changes: its figures, its files and its papers
// the screening section too: its "0 of 0 screened" stayed until a reload
const REGIONS = [
  "study-counts", "imports", "imports-list", "papers-h", "retrieval-counts", "papers-pdf",
  "screening-section",
];

export function installImports() {
  const zone = document.getElementById("dropzone");
  const input = document.getElementById("import-files");
  const report = document.getElementById("import-report");
  const study = zone.dataset.study;
  const POLL_MS = 500;

  function progress(job) {
    report.replaceChildren();
    const where = job.total ? ` (${job.done} of ${plural(job.total, "file")} read${job.current ? `: ${job.current}` : ""})` : "";
    line(report, `Importing in the background${where}…`, "muted");
  }

  async function follow(job) {
    if (job.active) {
      progress(job);
      const got = await followJob(`/api/v1/jobs/${encodeURIComponent(job.id)}`, {
        interval: POLL_MS,
        say: (text, retry) => {
          report.replaceChildren();
          const p = line(report, text, retry ? "notice error" : "muted");
          if (retry) p.append(" ", retry);
        },
        lost: "Lost contact with the server; the import goes on there. Reload the page to see the Study's papers.",
        running: (j) => j.active,
        onProgress: progress,
      });
      if (got.refused) return { message: got.refused.body.message || "The import job cannot be read." };
      job = got.ended;
    }
    if (job.status !== "done" || !job.result) {
      return { message: job.message || `The import job ended: ${job.status}.` };
    }
    return { data: job.result };
  }

  async function send(files) {
    if (!files.length) return;
    report.replaceChildren();
    line(report, `Importing ${plural(files.length, "file")}…`, "muted");
    const body = new FormData();
    for (const f of files) body.append("files", f, f.name);
    // where the files came from (PRISMA 2020): left empty, the server reads it from the file
    const sourceName = document.getElementById("import-source-name");
    const sourceKind = document.getElementById("import-source-kind");
    if (sourceName && sourceName.value.trim()) body.append("source", sourceName.value.trim());
    if (sourceKind && sourceKind.value) body.append("source_kind", sourceKind.value);
    let response;
    try {
      response = await fetch(`/api/v1/imports?study=${encodeURIComponent(study)}`, {
        method: "POST",
        body,
        headers: { "x-csrf-token": csrfToken(), accept: "application/json" },
      });
    } catch {
      report.replaceChildren();
      line(report, "The import could not be sent.", "notice error");
      return;
    }
    let data = await response.json();
    report.replaceChildren();
    if (!response.ok) {
      line(report, data.message || "The import was refused.", "notice error");
      return;
    }
    if (response.status === 202 && data.job) {
      const ended = await follow(data.job);
      report.replaceChildren();
      if (!ended.data) {
        line(report, ended.message, "notice error");
        return;
      }
      data = ended.data;
    }
    for (const i of data.imported) {
      const notices = Object.entries(i.notices).map(([k, n]) => `${k} ${n}`).join(", ") || "none";
      const counted = i.source ? `; counted as ${i.source.name} (${i.source.kind})` : "";
      line(report, `${i.file}: ${i.format}, ${i.encoding}, ${plural(i.records, "record")}, ${i.records_saved.toLocaleString("en")} saved (${i.papers_created.toLocaleString("en")} new)${counted}; notices: ${notices}`, "notice ok");
      for (const r of i.records_refused) line(report, `record refused: ${r.reason || r.message || JSON.stringify(r)}`, "notice warn");
    }
    for (const r of data.refused) line(report, `${r.file} refused (${r.code}): ${r.message}`, "notice error");
    if (data.imported.length) { // named for these files: the next files say their own
      if (sourceName) sourceName.value = "";
      if (sourceKind) sourceKind.value = "";
    }
    const saved = data.imported.reduce((n, i) => n + i.records_saved, 0);
    const updated = await refresh(REGIONS, `Imported: ${plural(saved, "record")} saved; the Study's figures and papers are up to date.`);
    if (!updated) line(report, "Reload the page to see the Study's papers.", "muted");
  }

  input.addEventListener("change", () => send([...input.files]));
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    send([...e.dataTransfer.files]);
  });
}
