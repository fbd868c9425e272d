// JSON calls to /api/v1 (same origin; writes carry the CSRF token from the page).
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
