"""The web face parses, calls the desk and renders: it never imports ``litdesk.adapters``
(checked on the source of every module), and importing it starts nothing."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import litdesk.faces.web as web

ROOT = Path(web.__file__).parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_no_adapters_import_in_the_web_face() -> None:
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) >= 9
    for path in files:
        bad = [m for m in _imports(path) if m.startswith("litdesk.adapters")]
        assert not bad, f"{path.name} imports {bad}"


def test_import_opens_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    code = "import litdesk.faces.web as w, litdesk.faces.web._app as a; print(hasattr(w, 'app'), hasattr(a, 'app'))"
    env = {"LITDESK_DATA_DIR": str(data), "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["False", "False"]  # no module-level app
    assert not data.exists()  # no store opened or created at import time
