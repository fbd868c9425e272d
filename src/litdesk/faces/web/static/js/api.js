// JSON calls to /api/v1 (same origin; writes carry the CSRF token from the page), and
// followJob: following a job (or any long task) by its status URL through the server's
// hiccups.
export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

export async function getJson(path, params, signal) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const response = await fetch(url, { headers: { accept: "application/json" }, signal });
  const body = await response.json();
  return { ok: response.ok, status: response.status, body };
}

// Answers that say "not now" rather than "no": read again after a while.
const TRANSIENT = new Set([429, 502, 503, 504]);
export const TRYING = "Trying to reach the server…";
export const LOST = "Lost contact with the server; refresh the page.";

function aborted() {
  return new DOMException("The request was cancelled.", "AbortError");
}

function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) { reject(aborted()); return; }
    const stop = () => { clearTimeout(timer); reject(aborted()); };
    const timer = setTimeout(() => { if (signal) signal.removeEventListener("abort", stop); resolve(); }, ms);
    if (signal) signal.addEventListener("abort", stop, { once: true });
  });
}

// Retry-After in milliseconds (delta-seconds or an HTTP date), or null.
function retryAfter(response) {
  const value = response.headers.get("retry-after");
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, when - Date.now());
}

// One read of `url`: { answer: {ok, status, body} } for an answer the page acts on, or
// { again: ms-or-null } for a hiccup — the network failed, the server answered 429, 502,
// 503 or 504 (its Retry-After, if any), or something that is not JSON (a proxy's error
// page) other than a 403/404, which are answers (the job is gone or not the reader's).
async function readOnce(url, signal) {
  let response;
  try {
    response = await fetch(url, { headers: { accept: "application/json" }, signal });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    return { again: null };
  }
  if (TRANSIENT.has(response.status)) return { again: retryAfter(response) };
  let body;
  try {
    body = await response.json();
  } catch (e) {
    if (e.name === "AbortError") throw e;
    if (response.status === 403 || response.status === 404) {
      return { answer: { ok: false, status: response.status, body: {} } };
    }
    return { again: null };
  }
  if (body === null || typeof body !== "object") return { again: null };
  return { answer: { ok: response.ok, status: response.status, body } };
}

// Follow a job at `url` until it ends, through the server's hiccups.
//   running(body)   whether the job still runs (then onProgress(body), read again after
//                   `interval` ms); else onEnd(body) and the promise resolves to
//                   { ended: body }.
//   A refusal (403, 404, any other error answered in JSON) ends at once: onRefused({status,
//   body}) and { refused: {status, body} }.
//   A hiccup (see readOnce) is read again after a growing delay (Retry-After honoured);
//   meanwhile `say` (a function given the text, or an element whose text it becomes) says
//   "Trying to reach the server…". After `giveUpMs` (60 s) of hiccups it says `lost` (the
//   page's words) with a Retry button, and waits for it; the page's own words come back
//   with the next answer (without `say`, it never gives up: the caller shows nothing).
//   Aborting `signal` rejects with an AbortError.
// `first`: ms before the first read (default `interval`).
export async function followJob(url, options) {
  const {
    running, onProgress = () => {}, onEnd = () => {}, onRefused = () => {},
    interval = 500, first = interval, signal, say = null, lost = LOST, giveUpMs = 60_000,
  } = options;
  const box = say instanceof Element ? say : null;
  let saved = null; // the box's own content while the helper's words are shown
  const tell = (text, retry) => {
    if (typeof say === "function") say(text, retry);
    if (!box) return;
    if (saved === null) saved = [...box.childNodes];
    box.replaceChildren(text);
    if (retry) box.append(" ", retry);
  };
  const restore = () => {
    if (box && saved !== null) box.replaceChildren(...saved);
    saved = null;
  };
  let wait = first;
  let failingSince = null;
  let delay = 0;
  for (;;) {
    await pause(wait, signal);
    const got = await readOnce(url, signal);
    if (got.answer) {
      failingSince = null;
      delay = 0;
      restore();
      const r = got.answer;
      if (!r.ok) { onRefused(r); return { refused: r }; }
      if (!running(r.body)) { onEnd(r.body); return { ended: r.body }; }
      onProgress(r.body);
      wait = interval;
      continue;
    }
    const now = Date.now();
    if (failingSince === null) failingSince = now;
    if (say && now - failingSince >= giveUpMs) {
      await retryClicked(tell, lost, signal);
      failingSince = null;
      delay = 0;
      tell(TRYING);
      wait = 0;
      continue;
    }
    tell(TRYING);
    if (got.again === null) { // 1 s, 2 s, 4 s … at most 10 s apart
      delay = Math.min(Math.max(interval, delay * 2 || 1000), 10_000);
      wait = delay;
    } else {
      wait = Math.min(Math.max(got.again, interval), giveUpMs);
    }
  }
}

function retryClicked(tell, lost, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) { reject(aborted()); return; }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "btn-link follow-retry";
    button.textContent = "Retry";
    const stop = () => reject(aborted());
    if (signal) signal.addEventListener("abort", stop, { once: true });
    button.addEventListener("click", () => {
      if (signal) signal.removeEventListener("abort", stop);
      resolve();
    }, { once: true });
    tell(lost, button);
  });
}
