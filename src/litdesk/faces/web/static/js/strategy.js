// Search page: the concept-group builder. The groups are posted to /api/v1/strategy/build;
// the built query, each provider's executed query or refusal and the warnings are shown as
// text. "Use this query" fills the search form (see useQuery; it does not search). Groups
// that came from the strategy assistant must be confirmed with "I reviewed these concepts"
// first, and any edit clears that confirmation. The suggestion is a model call run as a job of the
// server's queue (assist_job.js). When a group's first alternative is a subject of an
// offline vocabulary (its heading or one of its synonyms, /api/v1/subjects/aliases), the
// group names it (with a link to its page) and offers its other names as checkboxes that
// add or remove them as alternatives.
import { csrfToken, getJson } from "./api.js";
import { askModel } from "./assist_job.js";
import { line, plural } from "./dom.js";
import { say } from "./swap.js";

const MAX_GROUPS = 6;
const MAX_TERMS = 8;
const ALIAS_DEBOUNCE_MS = 250;

export async function postJson(path, payload) {
  const response = await fetch(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "x-csrf-token": csrfToken(),
    },
    body: JSON.stringify(payload),
  });
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = { message: `the server answered ${response.status}` };
  }
  return { ok: response.ok, status: response.status, body };
}

const state = { fromSuggestion: false, built: null };

function fieldsets() {
  return [...document.querySelectorAll("#strategy-form fieldset.concept")];
}

export function readGroups() {
  const groups = [];
  for (const fs of fieldsets()) {
    if (fs.hidden) continue;
    const terms = fs.querySelector("textarea").value.split("\n").map((t) => t.trim()).filter(Boolean);
    if (!terms.length) continue;
    groups.push({
      label: fs.querySelector('input[name="label"]').value.trim(),
      terms,
      included: fs.querySelector('input[name="included"]').checked,
    });
  }
  return groups;
}

// Fill the builder from suggested groups (the assistant); they then need a review.
export function fillGroups(groups) {
  const sets = fieldsets();
  sets.forEach((fs, i) => {
    const g = groups[i];
    fs.hidden = !g && i >= 2;
    fs.querySelector('input[name="label"]').value = g ? g.label : "";
    fs.querySelector("textarea").value = g ? g.terms.join("\n") : "";
    fs.querySelector('input[name="included"]').checked = true;
    // the first alternatives' subjects and their other names are looked up again
    fs.querySelector("textarea").dispatchEvent(new Event("input", { bubbles: true }));
  });
  state.fromSuggestion = true;
  document.getElementById("strategy-ai-note").hidden = false;
  document.getElementById("strategy-review-line").hidden = false;
  document.getElementById("strategy-reviewed").checked = false;
  document.getElementById("strategy").open = true;
  clearOutput();
}

function clearOutput() {
  state.built = null;
  document.getElementById("strategy-out").replaceChildren();
}

function reviewed() {
  return !state.fromSuggestion || document.getElementById("strategy-reviewed").checked;
}

function syncUseButton() {
  const use = document.getElementById("strategy-use");
  if (!use) return;
  use.disabled = !reviewed();
  const why = document.getElementById("strategy-use-why");
  if (why) why.hidden = reviewed();
}

// "Use this query", as the reference applies a strategy: the query box, the keyword mode,
// the keyword search's default database (the demo sample in the demo workspace), the field
// all and the sort relevance; type, years and the other filters stay. The form is filled and
// changed (the stale notice, the query check, a picked subject cleared as by any edit); the
// search waits for the user. litdesk has one query language, so there is no syntax to set.
export function useQuery(query) {
  const form = document.getElementById("search-form");
  const q = document.getElementById("q");
  q.value = query;
  const keyword = form.querySelector('input[name="mode"][value="keyword"]');
  if (keyword) keyword.checked = true;
  for (const box of form.querySelectorAll('input[name="provider"]')) {
    box.checked = box.hasAttribute("data-keyword-default");
  }
  form.elements.namedItem("field").value = "all";
  form.elements.namedItem("sort").value = "relevance";
  q.dispatchEvent(new Event("input", { bubbles: true }));
  form.dispatchEvent(new Event("change", { bubbles: true }));
  q.focus();
  const databases = [...form.querySelectorAll('input[name="provider"]:checked')]
    .map((b) => b.parentElement.textContent.trim());
  say(`The query is in the search box: keyword mode, ${databases.join(", ") || "the default database"}, field all, sort relevance. Press Search to run it.`);
}

function showBuilt(data) {
  const out = document.getElementById("strategy-out");
  out.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = `Built query (${data.characters} characters)`;
  const code = document.createElement("pre");
  code.className = "built-query";
  code.textContent = data.query;
  out.append(h, code);
  for (const w of data.warnings) line(out, `warning: ${w}`, "warn");
  const list = document.createElement("ul");
  list.className = "compiled";
  for (const [name, outcome] of Object.entries(data.providers)) {
    const li = document.createElement("li");
    if (outcome.refused) {
      li.className = "refused";
      li.textContent = `${name}: refused — ${outcome.refused}`;
    } else {
      li.textContent = `${name}: ${outcome.executed_query}`;
    }
    list.append(li);
  }
  const ph = document.createElement("h3");
  ph.textContent = "What each provider would get";
  out.append(ph, list);
  const use = document.createElement("button");
  use.type = "button";
  use.id = "strategy-use";
  use.textContent = "Use this query";
  use.addEventListener("click", () => {
    if (!reviewed()) return;
    useQuery(data.query);
  });
  out.append(use);
  const why = line(out, "Confirm “I reviewed these concepts” before using suggested terms.", "muted");
  why.id = "strategy-use-why";
  syncUseButton();
}

function termsOf(textarea) {
  return textarea.value.split("\n").map((t) => t.trim()).filter(Boolean);
}

// The subject a group's first alternative names, and its other names as checkboxes.
function installAliases(fs) {
  const textarea = fs.querySelector("textarea");
  const box = fs.querySelector("div.aliases");
  if (!textarea || !box) return;
  const group = fs.dataset.group;
  let asked = "";
  let timer = null;

  function sync() {
    const have = new Set(termsOf(textarea).map((t) => t.toLowerCase()));
    for (const input of box.querySelectorAll('input[type="checkbox"]')) {
      input.checked = have.has(input.value.toLowerCase());
    }
  }

  function toggle(input) {
    const terms = termsOf(textarea);
    const key = input.value.toLowerCase();
    const kept = terms.filter((t) => t.toLowerCase() !== key);
    if (input.checked) {
      if (terms.length >= MAX_TERMS) {
        input.checked = false;
        const say = box.querySelector(".aliases-note");
        if (say) say.textContent = `A group has at most ${MAX_TERMS} alternatives.`;
        return;
      }
      kept.push(input.value);
    }
    textarea.value = kept.join("\n");
  }

  function render(body) {
    box.replaceChildren();
    const s = body.subject;
    if (!s) {
      box.hidden = true;
      return;
    }
    const said = document.createElement("p");
    said.className = "muted";
    said.append(`The first alternative is the ${s.vocabulary_name} subject `);
    const link = document.createElement("a");
    link.href = s.page;
    link.textContent = s.label;
    said.append(link, ` (${s.id}).`);
    box.append(said);
    if (!body.aliases.length) {
      const none = document.createElement("p");
      none.className = "muted aliases-note";
      none.textContent = `${s.vocabulary_name} as installed lists no other names for it.`;
      box.append(none);
    } else {
      const set = document.createElement("fieldset");
      const legend = document.createElement("legend");
      legend.textContent = `Add its other names from ${s.vocabulary_name}`;
      set.append(legend);
      body.aliases.forEach((name, i) => {
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.type = "checkbox";
        input.value = name;
        input.id = `alias-${group}-${i}`;
        input.addEventListener("change", () => toggle(input));
        label.append(input, ` ${name}`);
        set.append(label);
      });
      const note = document.createElement("p");
      note.className = "muted aliases-note";
      note.setAttribute("role", "status");
      set.append(note);
      box.append(set);
    }
    box.hidden = false;
    sync();
  }

  async function lookUp() {
    const first = termsOf(textarea)[0] || "";
    if (first === asked) {
      sync();
      return;
    }
    asked = first;
    if (!first || first.length > 180) {
      render({ subject: null, aliases: [] });
      return;
    }
    try {
      const { ok, body } = await getJson("/api/v1/subjects/aliases", { term: first });
      if (asked === first) render(ok ? body : { subject: null, aliases: [] });
    } catch {
      render({ subject: null, aliases: [] });
    }
  }

  textarea.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(lookUp, ALIAS_DEBOUNCE_MS);
  });
}

export function installStrategy() {
  const form = document.getElementById("strategy-form");
  for (const fs of fieldsets()) installAliases(fs);
  const out = document.getElementById("strategy-out");
  document.getElementById("strategy-add").addEventListener("click", () => {
    const next = fieldsets().find((fs) => fs.hidden);
    if (next) {
      next.hidden = false;
      next.querySelector("textarea").focus();
    }
    if (fieldsets().filter((fs) => !fs.hidden).length >= MAX_GROUPS) {
      document.getElementById("strategy-add").disabled = true;
    }
  });
  // Any edit of the groups makes the built query stale and clears the review.
  form.addEventListener("input", (e) => {
    if (e.target.id === "strategy-reviewed") return;
    if (state.fromSuggestion) document.getElementById("strategy-reviewed").checked = false;
    if (state.built) clearOutput();
  });
  document.getElementById("strategy-reviewed").addEventListener("change", syncUseButton);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const groups = readGroups();
    out.replaceChildren();
    if (!groups.length) {
      line(out, "Type at least one alternative in a concept group.", "notice error");
      return;
    }
    let result;
    try {
      result = await postJson("/api/v1/strategy/build", { groups });
    } catch {
      line(out, "The groups could not be sent.", "notice error");
      return;
    }
    if (!result.ok) {
      line(out, `Not built: ${result.body.message || "refused"}`, "notice error");
      return;
    }
    state.built = result.body;
    showBuilt(result.body);
  });
}

// The strategy assistant: the question's consent notice (exact text, host, model, token),
// a checkbox bound to that token (editing the question clears it), one model call, and the
// suggested groups filled into the builder, marked unverified, awaiting a review.
export function installAssistant() {
  const question = document.getElementById("assist-question");
  const consentBox = document.getElementById("assist-consent");
  const consent = document.getElementById("assist-consent-box");
  const send = document.getElementById("assist-send");
  const out = document.getElementById("assist-out");
  const st = { token: null };

  function lapse() {
    st.token = null;
    consent.checked = false;
    send.disabled = true;
    consentBox.hidden = true;
  }
  question.addEventListener("input", lapse);
  consent.addEventListener("change", () => {
    send.disabled = !(consent.checked && st.token);
  });
  document.getElementById("assist-prepare").addEventListener("click", async () => {
    lapse();
    out.replaceChildren();
    const r = await postJson("/api/v1/strategy/notice", { question: question.value });
    if (!r.ok) {
      line(out, `Cannot send: ${r.body.message || "refused"}`, "notice error");
      return;
    }
    st.token = r.body.token;
    document.getElementById("assist-headline").textContent = r.body.headline;
    document.getElementById("assist-text").textContent = r.body.text;
    consentBox.hidden = false;
  });
  document.getElementById("assist-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!consent.checked || !st.token) return;
    const token = st.token;
    send.disabled = true;
    out.replaceChildren();
    const asking = line(out, "Asking the model… (one call, no retry)", "muted");
    let r;
    try {
      r = await askModel("/api/v1/strategy/suggest", { question: question.value, consent: token }, undefined, asking);
    } catch {
      out.replaceChildren();
      line(out, "The request was interrupted: the model may already have processed it.", "notice error");
      return;
    }
    out.replaceChildren();
    lapse();
    if (!r.ok) {
      line(out, `No suggestion (${r.body.code || r.status}): ${r.body.message || "refused"}`, "notice error");
      return;
    }
    line(out, `${plural(r.body.groups.length, "concept group")} suggested by ${r.body.record.model}; they are in the builder below. ${r.body.warning}`, "notice warn");
    for (const d of r.body.removed_duplicates) line(out, `duplicate term removed: ${d}`, "muted");
    fillGroups(r.body.groups);
  });
}

if (document.getElementById("strategy-form")) installStrategy();
if (document.getElementById("assist-form")) installAssistant();
