// Submit buttons marked data-shortcut="k" get the key k (listed on the help overlay); the key
// clicks the button, so the form's own checks and confirmations still apply.
import { addShortcut } from "./keys.js";

export function shortcutButtons(root) {
  for (const button of root.querySelectorAll("button[data-shortcut]")) {
    const label = (button.firstChild && button.firstChild.textContent || button.textContent).trim();
    addShortcut(button.dataset.shortcut, label, () => button.click());
  }
}
