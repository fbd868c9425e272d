// Reader: "Suggest evidence" (AI assistance). 1. Show what will be sent, to which host and
// model; the consent checkbox is bound to that exact text (its token) and lapses when the
// choice of text changes or the server says the text changed. 2. One model call; the draft
// (fields whose quotes were verified) opens in an editor; the call runs as a job of the
// server's queue, followed until it ends (assist_job.js). 3. Saved only after "I reviewed".
// Working in a Study with its own form, the draft fills that form: each field pre-filled
// with its checked suggestion (typed control) and the verified quote beside it; recording
// sends the values as reviewed (the server checks them against the form again).
// Every value from the server is inserted as text.
import { csrfToken, getJson } from "./api.js";
import { askModel } from "./assist_job.js";
import { line, plural } from "./dom.js";

const LAPSED = "The text changed since you reviewed it; look at it again and give consent again.";
const CANCELLED = "Cancelled. The model backend may already have processed the request (it counts against today's allowance).";

async function postJson(path, body, signal) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "x-csrf-token": csrfToken() },
    body: JSON.stringify(body),
    signal,
  });
  let data = {};
  try { data = await response.json(); } catch { data = { message: "The server answered something unreadable." }; }
  return { ok: response.ok, status: response.status, body: data };
}

export function installAssist() {
  const root = document.getElementById("suggest-evidence");
  if (!root) return;
  const paperId = root.dataset.paperId;
  const $ = (id) => document.getElementById(id);
  const consent = $("se-consent"), agree = $("se-agree"), send = $("se-send"), cancel = $("se-cancel");
  const status = $("se-status"), review = $("se-review"), fieldsBox = $("se-fields");
  const reviewed = $("se-reviewed"), save = $("se-save");
  let token = null;
  let draft = null;
  let controller = null;

  const choice = () => ({
    paper_id: paperId,
    source: root.querySelector('input[name="se-source"]:checked').value,
    section: $("se-section").value.trim() || null,
    study: root.dataset.studyId || null,
  });

  function lapse(message) {
    token = null;
    agree.checked = false;
    send.disabled = true;
    consent.hidden = true;
    status.textContent = message || "";
  }

  async function preview() {
    lapse("Fetching the text litdesk would send…");
    const { ok, body } = await postJson("/api/v1/assist/extract/preview", choice());
    if (!ok) { status.textContent = body.message || "The text could not be prepared."; return; }
    token = body.consent.token;
    $("se-headline").textContent = body.consent.headline;
    $("se-host").textContent = `${body.consent.host} (${body.consent.backend}, ${body.consent.model})`;
    const disclosure = $("se-disclosure");
    disclosure.replaceChildren();
    for (const d of body.bounded.disclosure) {
      const li = document.createElement("li");
      li.textContent = `Partial: ${d}.`;
      disclosure.append(li);
    }
    const text = $("se-text");
    text.replaceChildren();
    for (const b of body.bounded.blocks) line(text, `[${b.id}] ${b.section}: ${b.text}`);
    if (body.form) {
      const asked = body.form.fields.filter((f) => body.form.asked.includes(f.key));
      line(text, `The Study's form “${body.form.name}”, its fields asked besides the finding: ${asked.map((f) => `${f.label} (${f.type}${f.type === "choice" ? `: ${f.options.join(" / ")}` : ""})`).join("; ")}.`);
      for (const d of body.form.disclosure) {
        const li = document.createElement("li");
        li.textContent = `Partial: ${d}.`;
        disclosure.append(li);
      }
    }
    consent.hidden = false;
    status.textContent = "Read what will be sent, then give consent.";
  }

  function quoteBox(s, dropped) {
    if (!s) {
      const p = document.createElement("p");
      p.className = "muted se-quote";
      p.textContent = dropped
        ? "The suggestion was dropped (see the warning above): fill it yourself if the paper says."
        : "No verified suggestion: fill it yourself if the paper says.";
      return p;
    }
    const q = document.createElement("blockquote");
    q.className = "se-quote";
    q.textContent = `${s.quote} [${s.block}]`;
    return q;
  }

  function control(f, value) {
    const id = `se-f-${f.key}`;
    let el;
    if (f.type === "choice" || f.type === "yesno") {
      el = document.createElement("select");
      const opts = f.type === "choice" ? f.options : ["yes", "no"];
      for (const o of ["", ...opts]) {
        const opt = document.createElement("option");
        opt.value = o;
        opt.textContent = o || "—";
        el.append(opt);
      }
    } else if (f.type === "number") {
      el = document.createElement("input");
      el.inputMode = "decimal";
      el.maxLength = 40;
    } else {
      el = document.createElement("textarea");
      el.rows = 2;
      el.maxLength = f.max_length;
    }
    el.id = id;
    el.name = f.key;
    el.value = value;
    return el;
  }

  function renderForm(d) {
    const form = d.form;
    const finding = d.fields.finding;
    const head = document.createElement("p");
    head.textContent = form.finding_field
      ? `Finding (it fills the form's finding field below; its quote becomes the record's passage): ${finding.value}`
      : `Finding: ${finding.value} — its quote becomes the record's passage (this form has no finding field, so the statement itself is not recorded).`;
    fieldsBox.append(head, quoteBox(finding));
    for (const f of form.fields) {
      const mine = f.key === "finding" && form.finding_field;
      const s = mine ? { ...finding, text: finding.value } : d.form_fields[f.key];
      const pair = document.createElement("div");
      pair.className = "se-pair";
      const lab = document.createElement("label");
      lab.htmlFor = `se-f-${f.key}`;
      lab.textContent = f.required ? `${f.label} (required)` : f.label;
      const cell = document.createElement("div");
      cell.append(control(f, s ? s.text : ""));
      pair.append(lab, cell, quoteBox(s, d.dropped.includes(f.key)));
      fieldsBox.append(pair);
    }
    for (const line_ of form.disclosure) line(fieldsBox, `Partial: ${line_}.`, "notice warn");
    $("se-study-choice").hidden = true;
    save.textContent = "Record the values in the Study";
  }

  function renderDraft(d) {
    draft = d;
    fieldsBox.replaceChildren();
    const warnings = $("se-warnings");
    warnings.replaceChildren();
    for (const w of d.warnings) {
      const li = document.createElement("li");
      li.className = "notice warn";
      li.textContent = w;
      warnings.append(li);
    }
    if (d.form) {
      renderForm(d);
      reviewed.checked = false;
      save.disabled = true;
      review.hidden = false;
      line(fieldsBox, `Suggested by ${d.call.backend} ${d.call.model} at ${d.call.host}.`, "muted");
      return;
    }
    $("se-study-choice").hidden = false;
    save.textContent = "Save evidence";
    for (const [name, label] of Object.entries(d.labels)) {
      const f = d.fields[name];
      const id = `se-f-${name}`;
      const lab = document.createElement("label");
      lab.htmlFor = id;
      lab.textContent = name === "finding" ? `${label} (required)` : label;
      const area = document.createElement("textarea");
      area.id = id;
      area.name = name;
      area.rows = 2;
      area.maxLength = 4000;
      area.value = f ? f.value : "";
      fieldsBox.append(lab, area);
      if (f) {
        const q = document.createElement("blockquote");
        q.textContent = `${f.quote} [${f.block}]`;
        q.className = "se-quote";
        fieldsBox.append(q);
      } else {
        line(fieldsBox, "No verified suggestion.", "muted");
      }
    }
    reviewed.checked = false;
    save.disabled = true;
    review.hidden = false;
    line(fieldsBox, `Suggested by ${d.call.backend} ${d.call.model} at ${d.call.host}.`, "muted");
  }

  async function suggest() {
    if (!token || !agree.checked) return;
    controller = new AbortController();
    send.disabled = true;
    cancel.hidden = false;
    status.textContent = "Asking the model… (one call, no automatic retry)";
    let result;
    try {
      result = await askModel("/api/v1/assist/extract", { ...choice(), consent: token }, controller.signal, status);
    } catch (e) {
      cancel.hidden = true;
      if (e.name === "AbortError") { lapse(CANCELLED); return; }
      status.textContent = "The request could not be sent.";
      send.disabled = !agree.checked;
      return;
    }
    cancel.hidden = true;
    const { ok, status: code, body } = result;
    if (code === 409) { await preview(); status.textContent = LAPSED; return; }
    if (!ok) { status.textContent = body.message || "The model's answer was refused; nothing was saved."; send.disabled = !agree.checked; return; }
    const kept = body.form ? Object.keys(body.form_fields).length + 1 : Object.keys(body.fields).length;
    status.textContent = `Draft ready: ${plural(kept, "field")} with verified quotes. Review it below; nothing is saved yet.`;
    renderDraft(body);
  }

  async function saveDraft(event) {
    event.preventDefault();
    if (!draft || !reviewed.checked) return;
    if (draft.form) { await acceptForm(); return; }
    const values = {};
    for (const name of Object.keys(draft.labels)) values[name] = $(`se-f-${name}`).value;
    const { ok, body } = await postJson(`/api/v1/assist/drafts/${encodeURIComponent(draft.draft_id)}/save`, {
      reviewed: true, values, study: $("se-study").value || null,
    });
    if (!ok) { status.textContent = body.message || "The evidence could not be saved."; return; }
    review.hidden = true;
    draft = null;
    status.textContent = `Saved as evidence ${body.evidence_id}. Reload the page to see it in the evidence list.`;
    await showProvenance();
  }

  async function acceptForm() {
    const values = {};
    for (const f of draft.form.fields) values[f.key] = $(`se-f-${f.key}`).value;
    const { ok, body } = await postJson(`/api/v1/assist/drafts/${encodeURIComponent(draft.draft_id)}/accept`, {
      reviewed: true, values,
    });
    if (!ok) { status.textContent = body.message || "The values could not be recorded."; return; }
    review.hidden = true;
    draft = null;
    status.textContent = `Recorded as evidence ${body.evidence_id} in the Study. Reload the page to see it in the evidence list.`;
    await showProvenance();
  }

  async function showProvenance() {
    const box = $("se-provenance");
    const { ok, body } = await getJson(`/api/v1/assist/papers/${encodeURIComponent(paperId)}/provenance`, {});
    box.replaceChildren();
    if (!ok || body.records.length === 0) return;
    const h = document.createElement("h3");
    h.textContent = "Assisted evidence (quotes re-checked now)";
    box.append(h);
    for (const r of body.records) {
      const checks = Object.values(r.checks);
      const bad = checks.filter((c) => c !== "ok");
      line(box, `${r.evidence_id}: ${r.call.backend} ${r.call.model} at ${r.call.host}, answered ${r.call.answered_at}, reviewed ${r.reviewed_at}; quotes: ${bad.length ? bad.join("; ") : `all ${checks.length} found`}`,
        bad.length ? "notice warn" : "notice ok");
    }
  }

  $("se-preview").addEventListener("click", preview);
  for (const input of root.querySelectorAll('input[name="se-source"]')) input.addEventListener("change", () => lapse(""));
  $("se-section").addEventListener("input", () => lapse(""));
  agree.addEventListener("change", () => { send.disabled = !(agree.checked && token); });
  send.addEventListener("click", suggest);
  cancel.addEventListener("click", () => { if (controller) controller.abort(); });
  reviewed.addEventListener("change", () => { save.disabled = !reviewed.checked; });
  fieldsBox.addEventListener("input", () => { reviewed.checked = false; save.disabled = true; });
  review.addEventListener("submit", saveDraft);
  showProvenance();
  root.dataset.ready = "1";
}

