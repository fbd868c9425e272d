"""No absolute server paths in a team server's answers (issue 29): a typed error naming a
file under the data dir is answered without that folder on a team server. The answers of
a team server as ana, with her records, are checked by
``tests/faces/web/test_team_idor.py::test_team_answers_name_no_server_paths`` (on that
module's shared server, where her records are made once per backend).
"""

from __future__ import annotations

from pathlib import Path


def test_error_messages_hide_the_server_s_folders(tmp_path: Path) -> None:
    """A typed error whose message names a file under the data dir answers with ``…`` in
    place of the folder on a team server; a single-user server shows it as it is."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from litdesk import LitdeskError
    from litdesk.faces.web._errors import install_error_handlers

    folder = str(tmp_path / "data")
    for hide, shown in (
        ((folder,), "…/library/inbox/a.pdf"),
        ((), f"{folder}/library/inbox/a.pdf"),
    ):
        web = FastAPI()
        install_error_handlers(web, hide=hide)

        @web.get("/api/v1/x")
        def fail() -> None:
            raise LitdeskError(f"cannot read {folder}/library/inbox/a.pdf")

        r = TestClient(web).get("/api/v1/x")
        assert r.status_code == 500 and r.json()["message"] == f"cannot read {shown}"
