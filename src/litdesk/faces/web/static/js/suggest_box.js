// One ARIA combobox suggestion list for a text field, shared by the search form's subject
// suggestions (subjects.js) and the evidence form's subject picker (subject_picker.js):
// /api/v1/subjects/suggest is asked as the user types (debounced; an older question is
// aborted), the list is navigated with the arrow keys, Enter or a click picks, Escape and
// Tab close, and its size is announced in the status region. Every value is inserted as
// text. The caller says what to ask (params), what to show (answer → items, announcement,
// attribution) and what a pick does.
//
// With ``remote`` (the search form), a provider's suggestions (OpenAlex, through
// /api/v1/subjects/remote: it spends the account's allowance) come after the offline ones:
// asked REMOTE_DEBOUNCE_MS after the last keystroke, never more than one request in flight
// per box (the latest text is asked when it ends), an answer for text no longer in the
// field is dropped. When the server says they are unavailable or the allowance is spent,
// the list says so once and the box stops asking until the page is loaded again.
import { getJson } from "./api.js";

const DEBOUNCE_MS = 180;
const REMOTE_DEBOUNCE_MS = 300;

/**
 * @param {object} o
 * @param {HTMLInputElement|HTMLTextAreaElement} o.input the field (role="combobox")
 * @param {HTMLElement} o.list the listbox
 * @param {HTMLElement} o.status the announcements' live region
 * @param {(text: string) => Record<string, string>} o.params the question for the field's text
 * @param {(body: object) => {items: object[], announce: string, attribution?: string}} o.answer
 * @param {(item: object) => void} o.pick what picking an item does
 * @param {boolean} o.enterSubmits whether Enter without a picked item submits the form
 * @param {{path: string, label: string}} [o.remote] remote suggestions after the offline ones
 */
export function suggestBox({ input, list, status, params, answer, pick, enterSubmits, remote }) {
  let timer = null;
  let controller = null;
  let items = [];
  let active = -1;
  // the offline answer shown (for offlineText), the remote rows (for remoteText)
  let offline = { items: [], announce: "", attribution: "" };
  let offlineText = null;
  let remoteItems = [];
  let remoteText = null;
  let remoteAttribution = "";
  let remoteTimer = null;
  let remoteBusy = false;
  let remoteAgain = false;
  let remoteOff = false;
  let remoteNote = "";
  let remoteNoteText = null;
  let dismissed = false; // Escape, Tab, a pick or leaving the field: a late answer stays shut

  function close() {
    list.hidden = true;
    list.replaceChildren();
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    items = [];
    active = -1;
  }

  function setActive(index) {
    const options = list.querySelectorAll('li[role="option"]');
    options.forEach((li, i) => li.setAttribute("aria-selected", i === index ? "true" : "false"));
    active = index;
    if (index >= 0 && options[index]) {
      input.setAttribute("aria-activedescendant", options[index].id);
      options[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function choose(index) {
    const item = items[index];
    dismissed = true;
    if (item) pick(item);
  }

  function option(s, i) {
    const li = document.createElement("li");
    li.id = `${list.id}-opt-${i}`;
    li.setAttribute("role", "option");
    li.setAttribute("aria-selected", "false");
    if (s.kind === "remote") li.className = "remote";
    const label = document.createElement("span");
    label.textContent = s.label;
    const meta = document.createElement("span");
    meta.className = "muted";
    meta.textContent = `${s.kind === "spelling" ? "did you mean? · " : ""}${s.vocabulary_name} ${s.id}`;
    li.append(label, meta);
    li.addEventListener("mousedown", (event) => {
      event.preventDefault(); // keep the focus in the field
      choose(i);
    });
    return li;
  }

  function note(text) {
    const li = document.createElement("li");
    li.className = "attribution";
    li.setAttribute("role", "presentation");
    li.textContent = text;
    return li;
  }

  // the list for the field's text: the offline rows, then the remote ones for the same text
  function render() {
    const text = input.value;
    const own = offlineText === text ? offline.items : [];
    const more = remote && remoteText === text ? remoteItems : [];
    list.replaceChildren();
    items = own.concat(more);
    const noted = remoteNoteText === text ? remoteNote : "";
    if (!items.length && !noted) {
      close();
      return;
    }
    if (!items.length) {
      // nothing to pick: the remote part's one sentence goes to the status region only
      close();
      status.textContent = noted;
      return;
    }
    items.forEach((s, i) => list.append(option(s, i)));
    const sources = [offlineText === text ? offline.attribution : "", more.length ? remoteAttribution : ""]
      .filter(Boolean)
      .join("; ");
    if (sources) list.append(note(`Source: ${sources}`));
    if (noted) list.append(note(noted));
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
    const extra = more.length
      ? ` ${more.length} more from ${remote.label}.`
      : "";
    status.textContent = `${offlineText === text ? offline.announce : ""}${extra}${noted ? ` ${noted}` : ""}`.trim();
  }

  function show(body) {
    offline = answer(body);
    offlineText = input.value;
    render();
  }

  async function askRemote() {
    if (!remote || remoteOff) return;
    if (remoteBusy) {
      remoteAgain = true; // one request in flight per box: the latest text is asked after it
      return;
    }
    const text = input.value;
    if (!text.trim() || document.activeElement !== input || remoteText === text) return;
    remoteBusy = true;
    try {
      const { ok, body } = await getJson(remote.path, params(text));
      if (ok && input.value === text) {
        // an answer for text no longer in the field is dropped
        remoteText = text;
        remoteItems = body.suggestions || [];
        remoteAttribution = body.attribution || "";
        if (body.status === "unavailable" || body.status === "allowance_spent") {
          remoteOff = true; // said once; no more asking until the page is loaded again
          remoteNote = body.message;
          remoteNoteText = text;
        }
        if (document.activeElement === input && !dismissed) render();
      }
    } catch {
      remoteOff = true; // the server is gone: stop asking quietly
    } finally {
      remoteBusy = false;
    }
    if (remoteAgain) {
      remoteAgain = false;
      askRemote();
    }
  }

  async function suggest() {
    if (controller) controller.abort();
    const text = input.value;
    if (!text.trim() || document.activeElement !== input) {
      close();
      return;
    }
    controller = new AbortController();
    try {
      const { ok, body } = await getJson("/api/v1/subjects/suggest", params(text), controller.signal);
      if (ok && input.value === text) show(body);
      else if (!ok) close();
    } catch (error) {
      if (error.name !== "AbortError") close();
    }
  }

  function schedule() {
    dismissed = false;
    clearTimeout(timer);
    timer = setTimeout(suggest, DEBOUNCE_MS);
    if (remote && !remoteOff) {
      clearTimeout(remoteTimer);
      remoteTimer = setTimeout(askRemote, REMOTE_DEBOUNCE_MS);
    }
  }

  input.addEventListener("keydown", (event) => {
    if (list.hidden) {
      if (event.key === "ArrowDown" && input.value.trim()) {
        event.preventDefault();
        suggest();
      } else if (event.key === "Enter" && !enterSubmits) {
        event.preventDefault();
      }
      return;
    }
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((active + 1) % items.length);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive(active <= 0 ? items.length - 1 : active - 1);
    } else if (event.key === "Enter" && (active >= 0 || !enterSubmits)) {
      event.preventDefault(); // picks; a form that submits on Enter waits for the next one
      if (active >= 0) choose(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      dismissed = true;
      close();
    } else if (event.key === "Tab") {
      dismissed = true;
      close();
    }
  });
  input.addEventListener("blur", () => setTimeout(close, 100));
  return { close, schedule };
}
