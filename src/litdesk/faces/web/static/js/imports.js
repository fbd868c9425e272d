// Study page: drag and drop (or choose) export files; they are posted to /api/v1/imports and
// the report lists each imported file (format, encoding, records, notices by kind) beside each
// refused one with its reason. Every value is inserted as text.
import { csrfToken } from "./api.js";
import { line } from "./dom.js";

export function installImports() {
  const zone = document.getElementById("dropzone");
  const input = document.getElementById("import-files");
  const report = document.getElementById("import-report");
  const study = zone.dataset.study;

  async function send(files) {
    if (!files.length) return;
    report.replaceChildren();
    line(report, `Importing ${files.length} file(s)…`, "muted");
    const body = new FormData();
    for (const f of files) body.append("files", f, f.name);
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
    const data = await response.json();
    report.replaceChildren();
    if (!response.ok) {
      line(report, data.message || "The import was refused.", "notice error");
      return;
    }
    for (const i of data.imported) {
      const notices = Object.entries(i.notices).map(([k, n]) => `${k} ${n}`).join(", ") || "none";
      line(report, `${i.file}: ${i.format}, ${i.encoding}, ${i.records} records, ${i.records_saved} saved (${i.papers_created} new); notices: ${notices}`, "notice ok");
      for (const r of i.records_refused) line(report, `record refused: ${r.reason || r.message || JSON.stringify(r)}`, "notice warn");
    }
    for (const r of data.refused) line(report, `${r.file} refused (${r.code}): ${r.message}`, "notice error");
    line(report, "Reload the page to see the Study's papers.", "muted");
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
