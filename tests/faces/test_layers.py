"""Faces parse, call services, render: no module under ``litdesk/faces`` imports
``litdesk.adapters`` (module level or inside a function), only ``litdesk.services``,
``litdesk.core`` and the package's settings, errors and version."""

from __future__ import annotations

import ast
from pathlib import Path

import litdesk.faces

FACES = Path(litdesk.faces.__file__).parent
ALLOWED = ("litdesk.services", "litdesk.core", "litdesk._settings", "litdesk._errors")
#: Modules still being moved off the adapters may be listed here (none left).
PENDING: set[str] = set()


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _offences(path: Path) -> list[str]:
    out = []
    for line, name in _imports(path):
        if name == "litdesk" or not name.startswith("litdesk"):
            continue  # third-party libraries and the package root (version, errors)
        if name.startswith("litdesk.faces") or name.startswith(ALLOWED):
            continue
        out.append(f"{path.relative_to(FACES)}:{line} imports {name}")
    return out


def test_faces_never_import_adapters():
    modules = sorted(FACES.rglob("*.py"))
    assert len(modules) > 5  # the walk found the CLI
    offences = [
        o for m in modules if str(m.relative_to(FACES)) not in PENDING for o in _offences(m)
    ]
    assert offences == []


def test_the_walk_sees_lazy_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from litdesk.adapters.store import open_store\n")
    assert [name for _, name in _imports(probe)] == ["litdesk.adapters.store"]
