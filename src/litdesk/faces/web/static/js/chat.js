// Paper chat: "Select all" checks every paper. Asking queues the question as a job (any
// worker of the team server answers it): the page shows "answering…" with the job's stage
// and a cancel button, and once the round is written loads the chat page at that round,
// whose answer card the server renders as for any round. Without this script the form
// posts and the page shows the question in flight with a link to look again.
import { csrfToken, followJob } from "./api.js";
import { followScope } from "./dom.js";

const POLL_MS = 700;

async function call(method, path, body) {
  const headers = { accept: "application/json", "x-csrf-token": csrfToken() };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  let json = null;
  try { json = await response.json(); } catch { json = null; }
  return { status: response.status, ok: response.ok, body: json || {} };
}

export function installChat() {
  const scopeForm = document.getElementById("scope-form");
  if (scopeForm) followScope(scopeForm);
  const all = document.getElementById("scope-all");
  if (all) {
    const boxes = () => document.querySelectorAll('#scope-form input[name="papers"]');
    all.addEventListener("change", () => {
      for (const box of boxes()) box.checked = all.checked;
    });
  }
  const form = document.getElementById("ask-form");
  if (!form) return;
  const status = document.getElementById("ask-status");
  const button = document.getElementById("ask-button");
  const question = document.getElementById("question");
  let cancel = null;

  function refusal(message) {
    let box = document.getElementById("ask-refused");
    if (!box) {
      box = document.createElement("p");
      box.id = "ask-refused";
      box.className = "notice error";
      box.setAttribute("role", "alert");
      form.append(box);
    }
    box.textContent = message;
  }

  function idle() {
    form.dataset.busy = "";
    button.disabled = false;
    if (cancel) { cancel.remove(); cancel = null; }
  }

  function cancelButton(id) {
    if (cancel) return;
    cancel = document.createElement("button");
    cancel.type = "button";
    cancel.id = "ask-cancel";
    cancel.textContent = "Cancel";
    cancel.addEventListener("click", async () => {
      cancel.disabled = true;
      status.textContent = "Cancelling… (a model call under way finishes first)";
      await call("POST", `/api/v1/chat/jobs/${encodeURIComponent(id)}/cancel`);
    });
    status.after(cancel);
  }

  async function follow(id) {
    form.dataset.busy = "1";
    button.disabled = true;
    cancelButton(id);
    const pending = document.getElementById(`job-${id}`);
    const answering = (job) => {
      const stage = job.cancel_requested ? "cancelling" : job.stage;
      const cards = (job.questions || []).length > 1
        ? "the answer cards appear when all are ready"
        : "the answer card appears when it is ready";
      status.textContent = `Answering… (${stage}) — ${cards}.`;
    };
    await followJob(`/api/v1/chat/jobs/${encodeURIComponent(id)}`, {
      first: 0,
      interval: POLL_MS,
      say: status,
      lost: "Lost contact with the server; the question is answered there all the same. Refresh the page.",
      running: (job) => job.state === "running",
      onProgress: answering,
      onEnd: (job) => {
        if (job.state === "done" && job.round) {
          status.textContent = "Answered.";
          // the chat page at the new round: its card rendered by the server, as every round
          // (already at that address, e.g. another tab's question: a hash change would not
          // load the page again)
          const target = `/chat?round=${job.round}`;
          if (window.location.pathname + window.location.search === target) window.location.reload();
          else window.location.assign(`${target}#round-${job.round}`);
          return;
        }
        idle();
        status.textContent = "";
        if (pending) pending.remove();
        if (job.question && !question.value) question.value = job.question;
        refusal(job.message || "The question was not answered.");
      },
      onRefused: (got) => {
        idle();
        status.textContent = "";
        refusal(got.body.message || "The question cannot be followed.");
      },
    });
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (form.dataset.busy === "1") return;
    form.dataset.busy = "1";
    button.disabled = true;
    const old = document.getElementById("ask-refused");
    if (old) old.remove();
    status.textContent = "Asking…";
    const asked = await call("POST", "/api/v1/chat/ask", { question: question.value });
    if (asked.status === 202) {
      question.value = "";
      follow(asked.body.id);
    } else if (asked.status === 409 && asked.body.job) {
      follow(asked.body.job); // this session's question in flight (another tab)
    } else {
      idle();
      status.textContent = "";
      refusal(asked.body.message || `The question was not sent (HTTP ${asked.status}).`);
    }
  });

  const pending = document.querySelector("[data-job]");
  if (pending) {
    const id = pending.dataset.job;
    const cancelForm = document.getElementById("job-cancel-form");
    if (cancelForm) cancelForm.remove(); // the composer's Cancel button does it
    follow(id);
  } else if (question && !window.location.hash) {
    question.focus();
  }
}
