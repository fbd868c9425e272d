// litdesk web workspace: the page's small behaviours (no inline script; CSP 'self').
import { installKeys } from "./keys.js";
import { installSearch } from "./search.js";
import { installLive } from "./live.js";
import { installSubjects } from "./subjects.js";
import { installSubjectPicker } from "./subject_picker.js";
import { installReader } from "./reader.js";
import { installImports } from "./imports.js";
import { installStudyZip } from "./study_zip.js";
import { installAssist } from "./assist.js";
import "./strategy.js"; // installs itself on the search page
import "./summary.js"; // installs itself on a Study page
import { installViewer } from "./viewer.js";
import { installChat } from "./chat.js";
import { installJob, installWizard } from "./wizard.js";
import { installCitations } from "./citations.js";
import { installConfirm } from "./confirm.js";
import { installSwap } from "./swap.js";
import { installCounts } from "./counts.js";
import { installNav } from "./nav.js";

installKeys();
installNav();
installSwap();
installCounts();
if (document.getElementById("search-form")) { installSearch(); installLive(); installSubjects(); }
if (document.getElementById("highlight-form")) installReader();
for (const picker of document.querySelectorAll(".subject-picker")) installSubjectPicker(picker);
if (document.getElementById("dropzone")) installImports();
if (document.getElementById("zip-import")) installStudyZip();
if (document.getElementById("suggest-evidence")) installAssist();
if (document.getElementById("pdf-viewer")) installViewer();
if (document.getElementById("chat")) installChat();
if (document.getElementById("report-wizard")) installWizard();
if (document.getElementById("report-job")) installJob();
if (document.getElementById("cite-save")) installCitations();
if (document.getElementById("confirm-dialog")) installConfirm();
document.documentElement.dataset.ready = "1"; // the behaviours above are installed
