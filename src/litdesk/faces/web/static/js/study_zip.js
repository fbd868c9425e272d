// Study page: recover a Study from a ZIP export. The file is posted to /api/v1/study-imports;
// the report shows what was recovered (with a link to the new Study) or the refusal's reason.
// Every value is inserted as text.
import { csrfToken } from "./api.js";
import { line, plural } from "./dom.js";

export function installStudyZip() {
  const form = document.getElementById("zip-import");
  const report = document.getElementById("zip-report");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const file = document.getElementById("zip-file").files[0];
    if (!file) return;
    const body = new FormData();
    body.append("file", file, file.name);
    body.append("name", document.getElementById("zip-name").value);
    report.replaceChildren();
    line(report, `Checking ${file.name}…`, "muted");
    let response;
    let data;
    try {
      response = await fetch("/api/v1/study-imports", {
        method: "POST",
        body,
        headers: { "x-csrf-token": csrfToken(), accept: "application/json" },
      });
      data = await response.json();
    } catch {
      report.replaceChildren();
      line(report, "The ZIP could not be sent.", "notice error");
      return;
    }
    report.replaceChildren();
    if (!response.ok) {
      line(report, `The ZIP was not recovered: ${data.hint || data.message || "it was refused."} Nothing was stored.`, "notice error");
      return;
    }
    const remapped = Object.keys(data.remapped).length;
    const ok = line(report, `Recovered Study “${data.name}”: ${plural(data.papers, "paper")}, ${plural(data.notes, "note")}, ${plural(data.evidence, "evidence record")}, ${plural(data.search_runs, "search run")}, ${plural(data.imports, "import")}${remapped ? `; ${plural(remapped, "paper id")} remapped` : ""}. `, "notice ok");
    const a = document.createElement("a");
    a.href = `/study/${encodeURIComponent(data.study_id)}`;
    a.textContent = "Open it";
    ok.append(a);
    const stages = { title_abstract: "Title/abstract", full_text: "Full-text", settings: "Settings of the" };
    const history = (data.decisions || {}).history;
    if (history && history.error) {
      line(report, `The screening history (who decided what) was not recorded: ${history.error}. Each stage’s outcome is recorded as yours instead.`, "notice error");
    } else if (history) {
      const left = history.unmatched ? `; ${history.unmatched} for records not in the ZIP were left out` : "";
      const skipped = history.skipped ? `; ${plural(history.skipped, "unreadable row")} skipped` : "";
      line(report, `Screening history: ${plural(history.recorded, "decision")}, changes, undos and resolutions recorded with who made them and when${left}${skipped}.`);
      const whose = {
        you: "you",
        account: "their own account here (add them as members of the Study for them to see it)",
      };
      for (const r of data.reviewers || []) {
        const name = r.kind === "local" ? "the exporting workspace’s user" : r.name;
        line(report, `Reviewer ${name}: ${whose[r.as] || `no account here: recorded by you, under the name “${r.reviewer}”`}.`);
      }
    }
    for (const [stage, d] of Object.entries(data.decisions || {})) {
      if (stage === "history") continue;
      const name = stages[stage] || stage;
      if (d.error) {
        line(report, `${name} screening: not recorded (${d.error}).`, "notice error");
      } else {
        const unmatched = d.unmatched ? `, ${d.unmatched} matched no record` : "";
        let retrieval = "";
        if (d.retrieval_error) {
          retrieval = `; its retrieval (reports not retrieved) was not recorded: ${d.retrieval_error}`;
        } else if (d.retrieval || d.retrieval_unmatched) {
          const left = d.retrieval_unmatched ? `, ${d.retrieval_unmatched} matched no record` : "";
          retrieval = `; retrieval recorded for ${plural(d.retrieval || 0, "report")} as yours${left}`;
        }
        line(report, `${name} screening: ${plural(d.recorded, "decision")} recorded ${d.history ? "with their reviewers" : "as yours"}${unmatched}${retrieval}.`);
      }
    }
  });
}
