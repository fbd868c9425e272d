(function () {
  "use strict";
  var KEY = "litdesk.report.layout";
  var body = document.body;
  function setLayout(name) {
    if (["column", "contents", "compare"].indexOf(name) < 0) { name = "column"; }
    body.setAttribute("data-layout", name);
    var buttons = document.querySelectorAll("[data-set-layout]");
    for (var i = 0; i < buttons.length; i++) {
      var on = buttons[i].getAttribute("data-set-layout") === name;
      buttons[i].setAttribute("aria-pressed", on ? "true" : "false");
    }
    try { window.localStorage.setItem(KEY, name); } catch (e) { /* storage may be off */ }
  }
  var saved = null;
  try { saved = window.localStorage.getItem(KEY); } catch (e) { saved = null; }
  if (body.getAttribute("data-several") === "true") { setLayout(saved || "column"); }
  window.plrLayouts = { set: setLayout };

  var dialog = document.getElementById("viewer");
  var image = document.getElementById("viewer-img");
  var marks = document.getElementById("viewer-marks");
  var title = document.getElementById("viewer-title");
  var passage = document.getElementById("viewer-passage");
  var pdfLink = document.getElementById("viewer-pdf");
  var note = document.getElementById("viewer-note");

  function openCite(a) {
    var page = document.getElementById(a.getAttribute("data-page-img"));
    if (!page) { return false; }
    image.src = page.getAttribute("src");
    image.setAttribute("data-shown", a.getAttribute("data-page-img"));
    marks.textContent = "";
    var rects = (a.getAttribute("data-rects") || "").split(";");
    var first = null;
    for (var i = 0; i < rects.length; i++) {
      var v = rects[i].trim().split(" ");
      if (v.length !== 4) { continue; }
      var m = document.createElement("div");
      m.className = "mark";
      m.style.left = (parseFloat(v[0]) * 100) + "%";
      m.style.top = (parseFloat(v[1]) * 100) + "%";
      m.style.width = (parseFloat(v[2]) * 100) + "%";
      m.style.height = (parseFloat(v[3]) * 100) + "%";
      marks.appendChild(m);
      if (!first || parseFloat(v[1]) < parseFloat(first.getAttribute("data-y"))) { first = m; }
      m.setAttribute("data-y", v[1]);
    }
    title.textContent = a.getAttribute("data-caption");
    passage.textContent = a.getAttribute("data-passage");
    note.hidden = first !== null;
    pdfLink.setAttribute("href", a.getAttribute("href"));
    var openAt = dialog.getAttribute("data-open-at") || "Open the PDF at page {page}";
    pdfLink.textContent = openAt.split("{page}").join(a.getAttribute("data-pageno"));
    dialog.setAttribute("data-label", a.textContent);
    if (dialog.open) { /* already shown: new content */ }
    else if (typeof dialog.showModal === "function") { dialog.showModal(); } else { dialog.setAttribute("open", ""); }
    if (first) { first.scrollIntoView({ block: "center" }); }
    return true;
  }

  // A citation has a shareable address: report.html#cite-A1 opens its page view.
  var PREFIX = "#cite-";
  function setHash(value) {
    try {
      window.history.replaceState(null, "", window.location.pathname + window.location.search + value);
    } catch (e) { /* some file: contexts refuse; the viewer still works */ }
  }
  function citeFromHash() {
    var hash = window.location.hash;
    if (hash.indexOf(PREFIX) !== 0) { return false; }
    var label = decodeURIComponent(hash.slice(PREFIX.length));
    var links = document.querySelectorAll("a.cite");
    for (var i = 0; i < links.length; i++) {
      if (links[i].getAttribute("data-label") === label) { return openCite(links[i]); }
    }
    return false;
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!(t instanceof Element)) { return; }
    var cite = t.closest("a.cite");
    if (cite && openCite(cite)) {
      ev.preventDefault();
      setHash(PREFIX + encodeURIComponent(cite.getAttribute("data-label")));
      return;
    }
    var btn = t.closest("[data-set-layout]");
    if (btn) { setLayout(btn.getAttribute("data-set-layout")); return; }
    if (t.id === "viewer-close") { dialog.close(); }
  });
  dialog.addEventListener("close", function () {
    if (window.location.hash.indexOf(PREFIX) === 0) { setHash(""); }
  });
  window.addEventListener("hashchange", citeFromHash);
  citeFromHash();
})();
