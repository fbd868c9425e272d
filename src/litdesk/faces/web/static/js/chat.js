// Paper chat: "Select all" checks every paper; asking shows that it runs (answers take a
// while with a model) and keeps the page from sending the same question twice.
export function installChat() {
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
  form.addEventListener("submit", (event) => {
    if (form.dataset.busy === "1") { event.preventDefault(); return; }
    form.dataset.busy = "1";
    button.disabled = true;
    status.textContent = "Asking… the answer card appears when it is ready.";
  });
  const question = document.getElementById("question");
  if (question && !window.location.hash) question.focus();
}
