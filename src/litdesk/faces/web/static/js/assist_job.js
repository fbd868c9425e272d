// AI-assistance model calls run as jobs of the server's queue: the POST answers 202 with
// the job, which is followed at its status URL until it ends (any worker of a team server
// answers). askModel resolves to what the call itself answered before — { ok, status,
// body }: the result when the job is done, else its error with the HTTP status the call
// would have had (409 stale consent, 429 allowance with retry_after, ...). Aborting
// `signal` asks the server to cancel the job and rejects with an AbortError. `say` (an
// element or a function, see followJob): where "Trying to reach the server…" is said while
// the job cannot be read, then the lost contact with a Retry button.
import { csrfToken, followJob } from "./api.js";

const POLL_MS = 400;

function aborted() {
  return new DOMException("The request was cancelled.", "AbortError");
}

async function cancelJob(job) {
  try {
    await fetch(`/api/v1/assist/jobs/${encodeURIComponent(job.id)}/cancel`, {
      method: "POST",
      headers: { accept: "application/json", "x-csrf-token": csrfToken() },
    });
  } catch {
    // the server is unreachable: the job ends on its own (the call counts either way)
  }
}

export async function askModel(path, payload, signal, say) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "x-csrf-token": csrfToken() },
    body: JSON.stringify(payload),
    signal,
  });
  let body = {};
  try { body = await response.json(); } catch { body = { message: `the server answered ${response.status}` }; }
  if (response.status !== 202 || !body.job) return { ok: response.ok, status: response.status, body };
  let job = body.job;
  const url = body.status_url || `/api/v1/assist/jobs/${encodeURIComponent(job.id)}`;
  if (job.active) {
    let got;
    try {
      got = await followJob(url, { interval: POLL_MS, signal, say, running: (j) => j.active });
    } catch (e) {
      if (e.name === "AbortError") { await cancelJob(job); throw aborted(); }
      throw e;
    }
    if (got.refused) return { ok: false, status: got.refused.status, body: got.refused.body };
    job = got.ended;
  }
  if (job.status === "done" && job.result) return { ok: true, status: 200, body: job.result };
  const error = job.error || { message: `the job ended: ${job.status}` };
  return { ok: false, status: error.status || 500, body: error };
}
