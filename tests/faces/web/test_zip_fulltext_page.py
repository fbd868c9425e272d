"""The Study ZIP downloaded from the web carries the reports sought for retrieval in its
``screening/full_text.csv`` (walk 12: every record of the Study, "undecided", and not the
report recorded not retrieved), and the recovery page says the retrieval it recorded: a
Study recovered from it counts its report not retrieved again."""

from __future__ import annotations

import csv
import io
import re
import zipfile

from tests.faces.web._server import Running
from tests.faces.web.test_screening_web import _api, make_screening_study


def _sought(c: object, sid: str) -> dict[str, int]:
    flow = c.get(f"/api/v1/studies/{sid}/prisma-2020").json()  # type: ignore[attr-defined]
    return {b: sum(r[b] for r in flow["rounds"]) for b in ("sought", "not_retrieved")}


def test_the_zip_lists_the_reports_sought_and_recovery_says_their_retrieval(
    running: Running,
) -> None:
    with running.writer() as api:
        sid = make_screening_study(api, "Sought on the web")
        items = api.get(f"{_api(sid)}/items", params={"stage": "title_abstract"}).json()
        keys = [r["record_key"] for r in items["rows"]]
        for key, verdict in zip(keys[:3], ("include", "maybe", "exclude"), strict=True):
            body = {"stage": "title_abstract", "record_key": key, "verdict": verdict}
            assert api.post(f"{_api(sid)}/decisions", json=body).status_code == 200
        gone = {"record_key": keys[1], "retrieved": False, "note": "no library access"}
        assert api.post(f"{_api(sid)}/retrieval", json=gone).status_code == 200
        assert _sought(api, sid) == {"sought": 2, "not_retrieved": 1}
        data = api.get(f"/study/{sid}/export.zip").content
        target = api.post("/api/v1/studies", json={"name": "Here"}).json()["id"]
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        rows = list(csv.DictReader(io.StringIO(z.read("screening/full_text.csv").decode())))
    assert [(r["record_id"], r["retrieval"], r["retrieval_note"]) for r in rows] == [
        (keys[0], "", ""),
        (keys[1], "not retrieved", "no library access"),
    ]
    with running.client(headers={"origin": running.base}) as c:
        html = c.get(f"/study/{target}").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', html)
        assert token
        r = c.post(
            "/study-imports",
            data={"csrf_token": token.group(1), "name": "Sought again"},
            files={"file": ("s.zip", data, "application/zip")},
        )
        assert r.status_code == 200, r.text[:400]
        said = re.search(r'<p id="recovered-full_text">(.*?)</p>', r.text, re.S)
        assert said and "retrieval recorded for 1 report as yours" in said.group(1)
        recovered = re.search(r'href="/study/([^"]+)" id="open-recovered"', r.text)
        assert recovered
    with running.writer() as api:
        assert _sought(api, recovered.group(1)) == {"sought": 2, "not_retrieved": 1}
