"""The recovery report page (a Study ZIP posted as a plain form) says what became of the
ZIP's screening: the history with each reviewer and how they were recorded, the review
mode, and for a ZIP made before the history each stage's outcomes as yours (before: the page
failed — "Something went wrong inside litdesk" — on any ZIP that carried decisions)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

from tests._screening_pairs import pairs_zip
from tests.faces.web._server import Running

EXPORT = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"
TA = "title_abstract"


def _without_history(data: bytes) -> bytes:
    gone = ("screening/history.csv", "screening/review.json")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist() if n not in gone}
    manifest = json.loads(members["manifest.json"])
    manifest["members"] = [m for m in manifest["members"] if m["path"] not in gone]
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, body in members.items():
            z.writestr(name, body)
    return out.getvalue()


def _post(c: Any, token: str, data: bytes, name: str) -> str:
    r = c.post(
        "/study-imports",
        data={"csrf_token": token, "name": name},
        files={"file": ("s.zip", data, "application/zip")},
    )
    assert r.status_code == 200, r.text[:400]
    return str(r.text)


def test_the_report_page_names_the_reviewers_and_the_review_mode(
    running: Running, fixtures_dir: Path, tmp_path: Path
) -> None:
    data = pairs_zip(fixtures_dir, tmp_path / "elsewhere")
    with running.writer() as api:
        sid = api.post("/api/v1/studies", json={"name": "Here"}).json()["id"]
    with running.client(headers={"origin": running.base}) as c:
        html = c.get(f"/study/{sid}").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', html)
        assert token
        page = _post(c, token.group(1), data, "Pairs back")
        assert "Screening history: 25 decisions, changes, undos and resolutions" in page
        assert "dual review at title/abstract (revealed at title/abstract)" in page
        assert "“maybe” is a conflict" in page
        table = page[page.index('id="recovered-reviewers"') :]
        assert (
            '<th scope="row" class="title">Ana Lima</th><td data-label="Events">12</td>'
            '<td data-label="Recorded as">no account here: recorded by you, under the name '
            "“Ana Lima”</td>"
        ) in table
        assert (
            'the exporting workspace’s user</th><td data-label="Events">1</td>'
            '<td data-label="Recorded as">you</td>'
        ) in table
        assert "Title/abstract screening: 25 decisions recorded with their reviewers" in page
        old = _post(c, token.group(1), _without_history(data), "Old ZIP")
        assert 'id="recovered-history"' not in old
        assert re.search(r"Title/abstract screening: \d+ decisions recorded as yours", old)
