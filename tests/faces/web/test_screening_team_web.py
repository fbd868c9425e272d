"""Screening in a team through the pages (issue 28), on a team server over SQLite: two
reviewers blind at title and abstract (each page shows only the reader's own decisions and
counts), the reveal and resolution by the Study's owner by plain forms, a viewer who cannot
decide, agreement as a table and a chart, decisions exported and imported (unmatched rows
by line)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._store_template import sqlite_url_at_head
from tests.faces.web._team import TeamServer, add_accounts, team_server
from tests.faces.web.test_screening_web import _api, make_screening_study

from litdesk import Settings


@pytest.fixture
def server(
    tmp_settings: Settings, cassette: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[TeamServer]:
    team = tmp_path / "team" / "litdesk.sqlite3"
    url = sqlite_url_at_head(request.getfixturevalue("sqlite_template"), team)
    settings = tmp_settings.model_copy(update={"database_url": url})
    add_accounts(settings, "ana", "bob", "cy")
    with team_server(settings, cassette) as running:
        yield running


def _form(c: object, path: str, data: dict[str, str]) -> object:
    return c.post(path, data=data | {"csrf_token": c.headers["x-csrf-token"]})  # type: ignore[attr-defined]


def _history_section(html: str) -> str:
    found = re.search(r'id="record-history">(.*?)</section>', html, re.S)
    assert found
    return found.group(1)


def test_blind_pair_reveal_resolve_and_agreement(server: TeamServer) -> None:
    with server.signed_in("ana") as ana:
        sid = make_screening_study(ana)
        members = f"/api/v1/studies/{sid}/members"
        assert ana.post(members, json={"username": "bob", "role": "editor"}).is_success
        assert ana.post(members, json={"username": "cy", "role": "viewer"}).is_success
        r = ana.post(f"{_api(sid)}/settings", json={"dual_review": {"title_abstract": True}})
        assert r.status_code == 200
        keys = [
            row["record_key"]
            for row in ana.get(f"{_api(sid)}/items", params={"stage": "title_abstract"}).json()[
                "rows"
            ]
        ]
        for key, verdict in zip(keys[:3], ("include", "exclude", "include"), strict=True):
            body = {"stage": "title_abstract", "record_key": key, "verdict": verdict}
            assert ana.post(f"{_api(sid)}/decisions", json=body).status_code == 200
    with server.signed_in("bob") as bob:
        for key, verdict in zip(keys[:3], ("exclude", "exclude", "include"), strict=True):
            r = _form(
                bob,
                f"/study/{sid}/screen/decide",
                {"stage": "title_abstract", "record_key": key, "verdict": verdict},
            )
            assert r.status_code == 303  # type: ignore[attr-defined]
        # blind: bob's card and counts are his own; ana's decision is not shown
        page = bob.get(f"/study/{sid}/screen", params={"record": keys[0]}).text
        section = _history_section(page)
        assert section.count("<li") == 1 and 'Exclude</span> <span class="muted">· you ·' in section
        assert "(yours; blind)" in page and "3 of 8 screened" in page
        conflicts = bob.get(f"/study/{sid}/screen/conflicts").text
        assert "still blind" in conflicts and "The Study's owner reveals them." in conflicts
        assert 'id="reveal"' not in conflicts
        assert (
            "blind until the Study's owner reveals it"
            in bob.get(f"/study/{sid}/screen/agreement").text
        )
        refused = _form(bob, f"/study/{sid}/screen/reveal", {"stage": "title_abstract"})
        assert refused.status_code == 403  # type: ignore[attr-defined]
        # full text waits for the reveal: the record both included (keys[2]) is not shown
        # there, nor counted, which would tell bob that ana included it too
        agreed = bob.get(f"{_api(sid)}/card", params={"record_key": keys[2]}).json()["title"]
        ft = bob.get(f"/study/{sid}/screen", params={"stage": "full_text"}).text
        assert "Full-text screening waits for the reveal" in ft and agreed not in ft
        assert "0 of 0 screened" in ft
        # the Study page says so too (it showed "Full text: 0 of 0" with no word why)
        study_page = bob.get(f"/study/{sid}").text
        assert 'id="ft-waits"' in study_page and "reveals the title and abstract" in study_page
        items = bob.get(f"/study/{sid}/screen/items").text  # no choice that answers an error
        assert 'value="conflict"' not in items and 'value="mine"' in items
        # the settings say who changed them by name
        settings_page = bob.get(f"/study/{sid}/screen/settings").text
        assert "by ana." in settings_page and "acct_" not in settings_page

    # red team: the shared model learns from both reviewers' blind decisions, so its
    # scores, its order and its count told bob each of ana's verdicts (0.58 for a record
    # she included, 0.20 for one excluded, before bob decided anything); until the reveal
    # each of them — the Study's owner too — is ranked by a model of their own decisions
    def own_scores(client: object, who: str) -> list[float]:
        deadline = time.monotonic() + 60
        while client.get(f"{_api(sid)}/progress").json()["model"]["state"] != "ready":  # type: ignore[attr-defined]
            assert time.monotonic() < deadline, f"{who}'s model was never trained"
            time.sleep(0.2)
        scores = []
        for key in keys[:3]:
            card = client.get(f"{_api(sid)}/card", params={"record_key": key}).json()  # type: ignore[attr-defined]
            model = card["order"]["model"]
            assert model["blind"] is True and model["trained_on"] == 3, card
            scores.append(card["score"])
        return scores

    with server.signed_in("ana") as ana:
        mine = own_scores(ana, "ana")  # she included keys[0] and excluded keys[1]
        assert mine[0] > mine[1], mine
    with server.signed_in("bob") as bob:
        his = own_scores(bob, "bob")  # he excluded keys[0] and included keys[2]
        assert his[0] < his[2], his
        ranked = bob.get(f"{_api(sid)}/next", params={"order": "ranked"}).json()
        assert ranked["score"] is not None and ranked["order"]["mode"] == "ranked", ranked
        label = ranked["order"]["label"]
        assert label.startswith("ranked by a model trained on your 3 decisions"), label
        page = bob.get(f"/study/{sid}/screen/progress").text
        assert "Ranked by a model trained on your 3 decisions" in page
        card_page = bob.get(f"/study/{sid}/screen").text
        assert "Ranked by a model trained on your 3 decisions" in card_page
    with server.signed_in("cy") as cy:  # a viewer reads but does not decide
        r = cy.post(
            f"{_api(sid)}/decisions",
            json={"stage": "title_abstract", "record_key": keys[3], "verdict": "include"},
        )
        assert r.status_code == 403
        page = cy.get(f"/study/{sid}/screen").text  # a record to read, no decision form
        assert 'id="screen-card"' in page and 'id="read-only"' in page
        assert 'id="decide-form"' not in page and 'id="undo-form"' not in page
        # the role is checked before the settings are: an invalid change is refused too
        assert cy.post(f"{_api(sid)}/settings", json={"reasons": []}).status_code == 403
        assert cy.post(f"{_api(sid)}/settings", json={"reasons": ["x"]}).status_code == 403
    with server.signed_in("ana") as ana:
        assert ana.post(f"{_api(sid)}/settings", json={"reasons": []}).status_code == 400
        settings_page = ana.get(f"/study/{sid}/screen/settings").text
        assert 'id="reveal-title_abstract"' in settings_page
        r = _form(ana, f"/study/{sid}/screen/reveal", {"stage": "title_abstract"})
        assert r.status_code == 303  # type: ignore[attr-defined]
        queue = ana.get(f"/study/{sid}/screen/conflicts").text
        assert "1 conflict waiting" in queue
        with server.signed_in("bob") as bob:  # one of the pair: no resolve form, a way out
            mine = bob.get(f"/study/{sid}/screen/conflicts").text
            assert "You are one of this pair" in mine and "/screen/resolve" not in mine
        title = ana.get(f"{_api(sid)}/card", params={"record_key": keys[0]}).json()["title"]
        assert title in queue and queue.count("· you ·") == 0  # the other's name, then "you:"
        assert '<span class="who">you</span>: <span' in queue  # names, not account ids
        assert '<span class="who">bob</span>: <span' in queue
        r = _form(
            ana,
            f"/study/{sid}/screen/resolve",
            {"stage": "title_abstract", "record_key": keys[0], "verdict": "include"},
        )
        assert r.status_code == 303  # type: ignore[attr-defined]
        after = ana.get(f"{_api(sid)}/conflicts").json()
        assert after["count"] == 0 and after["resolved"] == 1
        # both originals and the resolution stay in the history
        entries = ana.get(f"{_api(sid)}/history", params={"record_key": keys[0]}).json()["entries"]
        assert sorted(e["kind"] for e in entries) == ["decision", "decision", "resolution"]
        assert len({e["reviewer"] for e in entries if e["kind"] == "decision"}) == 2
        agreement = ana.get(f"{_api(sid)}/agreement").json()
        pair = next(p for p in agreement["pairs"] if p["stage"] == "title_abstract")
        assert pair["n"] == 3 and pair["agreed"] == 2
        page = ana.get(f"/study/{sid}/screen/agreement").text
        assert ("you and bob" in page or "bob and you" in page) and "acct_" not in page
        assert f"{pair['kappa']:.2f}" in page
        assert 'id="chart-title_abstract"' in page and "<polyline" in page
        assert sorted(pair["reviewer_names"]) == ["ana", "bob"]  # names beside the ids
    with server.signed_in("bob") as bob:  # the Study's creator by her account name
        entries = bob.get(f"{_api(sid)}/history", params={"record_key": keys[0]}).json()["entries"]
        assert {e["reviewer_name"] for e in entries} == {"ana", "bob"}
        history = bob.get(f"/study/{sid}/screen/history", params={"record": keys[0]}).text
        assert "ana" in history and "Study's owner" not in history
        card = bob.get(f"/study/{sid}/screen", params={"record": keys[0]}).text
        assert "· ana ·" in _history_section(card) and "Study's owner" not in card
        agreement = bob.get(f"/study/{sid}/screen/agreement").text
        assert "ana and you" in agreement or "you and ana" in agreement


def test_decisions_out_and_in(server: TeamServer) -> None:
    with server.signed_in("ana") as ana:
        sid = make_screening_study(ana)
        rows = ana.get(f"{_api(sid)}/items", params={"stage": "title_abstract"}).json()["rows"]
        body = {
            "stage": "title_abstract",
            "record_key": rows[0]["record_key"],
            "verdict": "include",
        }
        assert ana.post(f"{_api(sid)}/decisions", json=body).status_code == 200
        page = ana.get(f"/study/{sid}/screen/exchange").text
        assert 'action="/screening-imports/' in page
        out = ana.get(f"/study/{sid}/screen/export", params={"format": "csv"})
        assert out.status_code == 200 and "attachment" in out.headers["content-disposition"]
        assert rows[0]["title"].split(":")[0] in out.text
        ris = ana.get(f"{_api(sid)}/export", params={"format": "ris"})
        assert ris.status_code == 200 and "TY  - " in ris.text
        # full text: the reports sought (here the one included), web and API alike
        ft = {"format": "csv", "stage": "full_text"}
        for got in (
            ana.get(f"/study/{sid}/screen/export", params=ft),
            ana.get(f"{_api(sid)}/export", params=ft),
        ):
            keys = [line.split(",")[0] for line in got.text.splitlines()[1:]]
            assert keys == [rows[0]["record_key"]], got.text
        ft_page = ana.get(f"/study/{sid}/screen/exchange", params={"stage": "full_text"}).text
        assert "one row per report sought for retrieval" in ft_page
        csv = "doi,decision,reason\n10.5555/scr.2,exclude,wrong population\n10.9999/none,include,\n"
        r = ana.post(
            f"/screening-imports/{sid}",
            data={"stage": "title_abstract", "csrf_token": ana.headers["x-csrf-token"]},
            files={"file": ("rayyan-free.csv", csv.encode(), "text/csv")},
        )
        assert r.status_code == 200
        assert "1 decision recorded" in r.text and 'id="unmatched"' in r.text
        assert re.search(r'<td class="num" data-label="Line">3</td>', r.text)
        again = ana.post(
            f"/api/v1/screening-imports/{sid}",
            params={"stage": "title_abstract"},
            files={"file": ("rayyan-free.csv", csv.encode(), "text/csv")},
        ).json()
        assert again["recorded"] == 0 and again["unchanged"] == 1  # nothing twice
        # two rows of one study: the earlier is listed as refused, and the summary counts it
        # (before: the summary's counts left the refused rows out)
        twice = "doi,decision\n10.5555/scr.3,include\n10.5555/scr.3,exclude\n"
        r = ana.post(
            f"/screening-imports/{sid}",
            data={"stage": "title_abstract", "csrf_token": ana.headers["x-csrf-token"]},
            files={"file": ("twice.csv", twice.encode(), "text/csv")},
        )
        assert r.status_code == 200 and "1 decision recorded" in r.text
        assert "matched no record · 1 refused" in r.text and 'id="refused"' in r.text
        assert "Line 2: the same study as line 3, which decides otherwise" in r.text
        bad = ana.post(
            f"/screening-imports/{sid}",
            data={"stage": "title_abstract", "csrf_token": ana.headers["x-csrf-token"]},
            files={"file": ("empty.csv", b"", "text/csv")},
        )
        assert bad.status_code == 400 and 'class="error-summary"' in bad.text
        # Rayyan's export with a reviewer map: Ann Lee's decision recorded as bob's (by
        # name, never an account id on the page), Cy's listed, a broken record reported
        members = f"/api/v1/studies/{sid}/members"
        assert ana.post(members, json={"username": "bob", "role": "editor"}).is_success
        rayyan = (
            b"key,title,doi,notes\n"
            b'1,T,10.5555/scr.3,"RAYYAN-INCLUSION: {""Ann Lee""=>""Included"", ""Cy""=>""Maybe""}"\n'
            b'2,T,10.5555/scr.4,"RAYYAN-INCLUSION: {""Ann Lee""=>""Included"""\n'
        )
        r = ana.post(
            f"/screening-imports/{sid}",
            data={
                "stage": "title_abstract",
                "csrf_token": ana.headers["x-csrf-token"],
                "reviewer_map": "Ann Lee=bob\n",
            },
            files={"file": ("articles.csv", rayyan, "text/csv")},
        )
        assert r.status_code == 200 and "1 decision recorded" in r.text
        assert "as the decisions of bob" in r.text and "acct_" not in r.text
        assert 'id="problems"' in r.text and "Line 3: Rayyan&#39;s notes cannot be read" in r.text
        assert "&#39;Cy&#39; is not in the reviewer map" in r.text
        api = ana.post(
            f"/api/v1/screening-imports/{sid}",
            params={"reviewer_map": ["Ann Lee=bob", "Cy=ana"]},
            files={"file": ("articles.csv", rayyan, "text/csv")},
        ).json()
        assert api["recorded"] == 1 and api["unchanged"] == 1 and not api["unmatched"]
        assert sorted(api["reviewer_names"]) == ["ana", "bob"]
        assert [p["line"] for p in api["problems"]] == [3]
