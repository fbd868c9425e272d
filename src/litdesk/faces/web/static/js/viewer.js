// PDF viewer: place the passage's highlight boxes (page fractions from the server) over the
// page image; arrow keys turn the page. Positions are set through the CSSOM (no style=).
export function installViewer() {
  const marks = document.querySelectorAll("#pdf-marks .pdf-mark");
  for (const mark of marks) {
    const [x, y, w, h] = (mark.dataset.rect || "").split(" ").map(Number);
    if ([x, y, w, h].some((v) => !Number.isFinite(v))) continue;
    mark.style.left = `${x * 100}%`;
    mark.style.top = `${y * 100}%`;
    mark.style.width = `${w * 100}%`;
    mark.style.height = `${h * 100}%`;
    mark.classList.add("placed");
  }
  if (marks.length) {
    marks[0].scrollIntoView({ block: "center" });
  }
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const link = document.getElementById(event.key === "ArrowRight" ? "page-next" : event.key === "ArrowLeft" ? "page-prev" : "");
    if (link) link.click();
  });
}
