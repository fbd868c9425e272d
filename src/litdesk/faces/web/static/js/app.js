// litdesk web workspace: the page's small behaviours (no inline script; CSP 'self').
import { installKeys } from "./keys.js";
import { installSearch } from "./search.js";
import { installReader } from "./reader.js";
import { installImports } from "./imports.js";
import { installStudyZip } from "./study_zip.js";
import { installAssist } from "./assist.js";
import "./strategy.js"; // installs itself on the search page
import "./summary.js"; // installs itself on a Study page
import { installViewer } from "./viewer.js";
import { installChat } from "./chat.js";
import { installJob, installWizard } from "./wizard.js";

installKeys();
if (document.getElementById("search-form")) installSearch();
if (document.getElementById("highlight-form")) installReader();
if (document.getElementById("dropzone")) installImports();
if (document.getElementById("zip-import")) installStudyZip();
if (document.getElementById("suggest-evidence")) installAssist();
if (document.getElementById("pdf-viewer")) installViewer();
if (document.getElementById("chat")) installChat();
if (document.getElementById("report-wizard")) installWizard();
if (document.getElementById("report-job")) installJob();
document.documentElement.dataset.ready = "1"; // the behaviours above are installed
