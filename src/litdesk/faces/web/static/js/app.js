// litdesk web workspace: the page's small behaviours (no inline script; CSP 'self').
import { installKeys } from "./keys.js";
import { installSearch } from "./search.js";
import { installLive } from "./live.js";
import { installReader } from "./reader.js";
import { installImports } from "./imports.js";
import { installStudyZip } from "./study_zip.js";
import { installCitations } from "./citations.js";
import { installConfirm } from "./confirm.js";

installKeys();
if (document.getElementById("search-form")) { installSearch(); installLive(); }
if (document.getElementById("highlight-form")) installReader();
if (document.getElementById("dropzone")) installImports();
if (document.getElementById("zip-import")) installStudyZip();
if (document.getElementById("cite-save")) installCitations();
if (document.getElementById("confirm-dialog")) installConfirm();
document.documentElement.dataset.ready = "1"; // the behaviours above are installed
