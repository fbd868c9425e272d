// A confirmation that works with the keyboard: the page's modal <dialog id="confirm-dialog">
// (focus moves to "Confirm"; Enter confirms, Escape or "Cancel" cancels; focus returns to the
// button that asked). Submit buttons marked data-confirm-new-study ask before a form creates
// a new Study. The message is inserted as text.
import { plural } from "./dom.js";

export function confirmThen(message, returnTo) {
  const dialog = document.getElementById("confirm-dialog");
  if (!dialog || typeof dialog.showModal !== "function") return Promise.resolve(window.confirm(message));
  document.getElementById("confirm-text").textContent = message;
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (returnTo instanceof HTMLElement) returnTo.focus();
      resolve(dialog.returnValue === "ok");
    }, { once: true });
    dialog.showModal();
    document.getElementById("confirm-ok").focus();
  });
}

export function installConfirm() {
  for (const form of document.querySelectorAll("form")) {
    let confirmed = false;
    form.addEventListener("submit", async (event) => {
      const button = event.submitter;
      if (confirmed || event.defaultPrevented || !(button instanceof HTMLElement) || !button.hasAttribute("data-confirm-new-study")) return;
      const name = form.elements.namedItem("new_study");
      const picked = form.querySelectorAll('input[name="paper_ids"]:checked').length;
      if (!(name instanceof HTMLInputElement) || !name.value.trim()) return;
      event.preventDefault();
      const ok = await confirmThen(`Create the new Study “${name.value.trim()}” and add ${plural(picked, "chosen paper")} to it?`, button);
      if (!ok) return;
      confirmed = true;
      form.requestSubmit(button);
      confirmed = false;
    });
  }
}
