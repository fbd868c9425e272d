"""``litdesk note edit/delete``, ``evidence delete``, ``study remove-paper / remove-import /
delete / trash / restore / empty-trash / history`` end to end (issue 27), with ``--json``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.faces.test_cli_workspace import _seed, run

__all__ = ["run"]


def _json(run, *args: str, code: int = 0) -> dict:
    return json.loads(run(*args, "--json", code=code).stdout)


def test_edit_delete_restore_and_history(run, tmp_path: Path) -> None:
    _seed(run)
    note = _json(run, "paper", "note", "MED-4242", "first", "--study", "Stroke")["id"]
    hl = _json(run, "paper", "highlight", "MED-4242", "risk of stroke", "--study", "Stroke")["id"]
    ev = _json(
        run,
        "evidence",
        "add",
        "MED-4242",
        "--finding",
        "fewer strokes",
        "--passage",
        "reduced the risk of stroke",
        "--study",
        "Stroke",
    )["id"]
    assert _json(run, "note", "edit", note, "second")["comment"] == "second"
    run("note", "edit", note, "   ", code=2)  # a comment is not blanked: deleted instead
    gone = _json(run, "note", "delete", hl)
    assert gone["kind"] == "highlight" and gone["study_name"] == "Stroke"
    assert "Undo with: litdesk study restore" in run("evidence", "delete", ev).stdout
    show = _json(run, "study", "show", "Stroke")
    assert (show["notes"], show["evidence"]) == (1, 0)
    trash = _json(run, "study", "trash", "Stroke")
    assert sorted(i["kind"] for i in trash["items"]) == ["evidence", "highlight"]
    _json(run, "study", "restore", gone["trash_id"])
    assert _json(run, "study", "show", "Stroke")["notes"] == 2
    run("study", "restore", gone["trash_id"], code=4)  # already back

    out = _json(run, "study", "remove-paper", "Stroke", "MED-4242")
    assert _json(run, "study", "show", "Stroke")["papers"] == []
    _json(run, "study", "restore", out["trash_id"])

    ris = tmp_path / "more.ris"
    ris.write_text("TY  - JOUR\nTI  - Imported one\nDO  - 10.1/imp\nER  - \n")
    run("import", str(ris), "--study", "Stroke")
    imp = _json(run, "study", "show", "Stroke")["imports"][0]
    removed = _json(run, "study", "remove-import", "Stroke", imp)
    assert removed["count"] == 1 and len(_json(run, "study", "show", "Stroke")["papers"]) == 1

    run("study", "empty-trash", "Stroke", "--json", code=2)  # not confirmed
    assert _json(run, "study", "empty-trash", "Stroke", "--yes")["count"] == 2
    deleted = _json(run, "study", "delete", "Stroke")
    run("study", "show", "Stroke", code=4)
    assert [i["kind"] for i in _json(run, "study", "trash")["items"]] == ["study"]
    _json(run, "study", "restore", deleted["trash_id"])
    actions = [e["action"] for e in _json(run, "study", "history", "Stroke")["entries"]]
    for action in (
        "comment_edited",
        "highlight_deleted",
        "evidence_deleted",
        "paper_removed",
        "import_removed",
        "trash_emptied",
        "study_deleted",
        "study_restored",
    ):
        assert action in actions
    said = run("study", "history", "Stroke").stdout  # in words, never a raw id
    assert "Deleted a highlight" in said and "highlight_deleted" not in said
    assert "local" not in said  # one person works here: not named on every line
    said = run("study", "empty-trash", "Stroke").stdout  # empty: nothing to ask, nothing done
    assert "The trash in Stroke is empty: there is nothing to empty." in said, said
    assert not re.search(r"\b(ev|note)-[0-9a-f]{16}", said)
