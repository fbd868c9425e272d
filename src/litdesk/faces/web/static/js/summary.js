// Study page: the summary panel. 1. "Show the sources" lists the numbered sources (each can
// be deselected), what is left out and why. 2. The consent notice shows the exact text, its
// host and model; the checkbox is bound to that text's token and any change of sources or
// focus clears it. 3. "Summarise" makes one model call (a job of the server's queue,
// followed until it ends: assist_job.js); the draft shows only verified points
// (with their quotes) and what was dropped. 4. After "I reviewed this summary" the kept
// points are saved as a Study report. Every value is inserted as text.
import { csrfToken } from "./api.js";
import { askModel } from "./assist_job.js";
import { line, plural } from "./dom.js";

async function call(method, path, payload) {
  const init = { method, headers: { accept: "application/json", "x-csrf-token": csrfToken() } };
  if (payload !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(payload);
  }
  const response = await fetch(path, init);
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = { message: `the server answered ${response.status}` };
  }
  return { ok: response.ok, status: response.status, body };
}

export function installSummary() {
  const panel = document.getElementById("summary-panel");
  const base = `/api/v1/studies/${encodeURIComponent(panel.dataset.study)}`;
  const focus = document.getElementById("summary-focus");
  const sourcesBox = document.getElementById("summary-sources");
  const consentBox = document.getElementById("summary-consent");
  const consent = document.getElementById("summary-consent-box");
  const send = document.getElementById("summary-send");
  const draftBox = document.getElementById("summary-draft");
  const reportsBox = document.getElementById("summary-reports");
  const state = { token: null, seq: 0, draft: null };

  function deselected() {
    return [...sourcesBox.querySelectorAll("input.src:not(:checked)")].map((i) => i.value);
  }

  function lapse() {
    state.token = null;
    consent.checked = false;
    send.disabled = true;
  }

  async function refreshNotice() {
    lapse();
    const seq = ++state.seq;
    const r = await call("POST", `${base}/summary/notice`, { focus: focus.value, deselected: deselected() });
    if (seq !== state.seq) return; // a later change asked again
    if (!r.ok) {
      consentBox.hidden = true;
      line(sourcesBox, `Cannot send: ${r.body.message || "refused"}`, "notice error");
      return;
    }
    state.token = r.body.token;
    document.getElementById("summary-headline").textContent = r.body.headline;
    document.getElementById("summary-text").textContent = r.body.text;
    consentBox.hidden = false;
  }

  document.getElementById("summary-load").addEventListener("click", async () => {
    sourcesBox.replaceChildren();
    draftBox.replaceChildren();
    const r = await call("GET", `${base}/summary/sources`);
    if (!r.ok) {
      line(sourcesBox, r.body.message || "The sources could not be listed.", "notice error");
      return;
    }
    const p = r.body;
    line(sourcesBox, `${p.sources.length} sources, ${p.characters} characters (at most ${p.limits.sources} sources and ${p.limits.characters} characters). Untick a source to leave it out.`);
    const list = document.createElement("ul");
    list.className = "sources";
    for (const s of p.sources) {
      const li = document.createElement("li");
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.className = "src";
      box.value = s.id;
      box.checked = true;
      label.append(box, ` ${s.id} · ${s.label} (${s.characters} characters${s.shortened ? ", cut" : ""})`);
      li.append(label);
      list.append(li);
    }
    sourcesBox.append(list);
    for (const o of p.omissions) line(sourcesBox, o, "warn");
    line(sourcesBox, `Never sent: ${p.excluded_kinds.join("; ")}.`, "muted");
    if (!p.available) {
      line(sourcesBox, `Summaries are unavailable: ${p.unavailable}`, "notice error");
      return;
    }
    list.addEventListener("change", refreshNotice);
    await refreshNotice();
  });
  focus.addEventListener("change", () => {
    if (!consentBox.hidden) refreshNotice();
  });
  consent.addEventListener("change", () => {
    send.disabled = !(consent.checked && state.token);
  });

  document.getElementById("summary-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!consent.checked || !state.token) return;
    send.disabled = true;
    draftBox.replaceChildren();
    const asking = line(draftBox, "Asking the model… (one call, no retry)", "muted");
    let r;
    try {
      r = await askModel(`${base}/summary`, {
        focus: focus.value,
        deselected: deselected(),
        consent: state.token,
      }, undefined, asking);
    } catch {
      draftBox.replaceChildren();
      line(draftBox, "The request was interrupted: the model may already have processed it.", "notice error");
      return;
    }
    draftBox.replaceChildren();
    lapse();
    if (!r.ok) {
      line(draftBox, `No summary (${r.body.code || r.status}): ${r.body.message || "refused"}. Nothing was saved.`, "notice error");
      for (const w of r.body.warnings || (r.body.details && r.body.details.warnings) || []) line(draftBox, w, "warn");
      return;
    }
    showDraft(r.body);
  });

  function showDraft(d) {
    state.draft = d;
    const wrap = document.createElement("div");
    draftBox.append(wrap);
    const h = document.createElement("h3");
    h.textContent = "Draft summary (review before saving)";
    wrap.append(h);
    line(wrap, `Model ${d.record.model} at ${d.record.host}. ${d.citations_checked} citations checked, ${d.citations_rejected} rejected.`, "muted");
    const titles = { overview: "Overview", findings: "Findings", gaps: "Gaps", next_steps: "Next steps" };
    for (const [name, points] of Object.entries(d.sections)) {
      const sh = document.createElement("h4");
      sh.textContent = titles[name] || name;
      wrap.append(sh);
      if (!points.length) line(wrap, "No verified point.", "muted");
      const ol = document.createElement("ol");
      points.forEach((pt, i) => {
        const li = document.createElement("li");
        li.className = "point";
        const label = document.createElement("label");
        const keep = document.createElement("input");
        keep.type = "checkbox";
        keep.className = "keep";
        keep.value = `${name}:${i}`;
        keep.checked = true;
        label.append(keep, ` ${pt.text}`);
        li.append(label);
        for (const c of pt.citations) {
          const q = document.createElement("blockquote");
          q.textContent = `[${c.source}] “${c.quote}”`;
          li.append(q);
        }
        ol.append(li);
      });
      wrap.append(ol);
    }
    for (const w of d.warnings) line(wrap, w, "warn");
    const review = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "summary-reviewed";
    review.append(box, " I reviewed this summary");
    const save = document.createElement("button");
    save.type = "button";
    save.id = "summary-save";
    save.textContent = "Save as Study report";
    save.disabled = true;
    wrap.addEventListener("change", (e) => {
      if (e.target.classList.contains("keep")) box.checked = false; // an edit clears the review
      save.disabled = !box.checked;
    });
    save.addEventListener("click", async () => {
      const drop = [...wrap.querySelectorAll("input.keep:not(:checked)")].map((i) => i.value);
      const r = await call("POST", `${base}/reports`, { draft_id: d.draft_id, drop, reviewed: box.checked });
      if (!r.ok) {
        line(wrap, `Not saved: ${r.body.message || "refused"}`, "notice error");
        return;
      }
      save.disabled = true;
      listReports();
      const ok = line(wrap, `Saved as Study report ${r.body.id}. `, "notice ok");
      const a = document.createElement("a");
      a.href = `/study/${encodeURIComponent(panel.dataset.study)}/reports/${encodeURIComponent(r.body.id)}.html`;
      a.textContent = "Printable report (offline HTML)";
      a.setAttribute("download", "");
      ok.append(a);
    });
    const p = document.createElement("p");
    p.append(review, " ", save);
    wrap.append(p);
  }
  async function listReports() {
    const r = await call("GET", `${base}/reports`);
    reportsBox.replaceChildren();
    if (!r.ok || !r.body.reports.length) return;
    const h = document.createElement("h3");
    h.textContent = "Saved Study reports";
    const ul = document.createElement("ul");
    for (const rep of r.body.reports) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/study/${encodeURIComponent(panel.dataset.study)}/reports/${encodeURIComponent(rep.id)}.html`;
      a.setAttribute("download", "");
      a.textContent = `${new Date(rep.created_at).toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" })} · ${rep.focus} · ${plural(rep.points, "point")} (${rep.model})`;
      li.append(a);
      if (rep.problem) line(li, rep.problem, "warn");
      ul.append(li);
    }
    reportsBox.append(h, ul);
  }
  listReports();
}

if (document.getElementById("summary-panel")) installSummary();
