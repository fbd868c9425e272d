"""Errors a person sees on the web say what happened and what to do, in plain words: no
exception class name (of the whole LitdeskError tree) in any error page or search notice we
can provoke, the code folded into "Details", one message per error (never twice), and the
JSON API keeps ``{error, code, message}`` and adds ``hint``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette

from litdesk._errors import LitdeskError


def _class_names() -> set[str]:
    import litdesk.faces.cli  # every area's errors are defined once imported
    import litdesk.faces.web  # noqa: F401

    names: set[str] = set()
    todo: list[type[LitdeskError]] = [LitdeskError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__.lstrip("_"))
        todo.extend(cls.__subclasses__())
    return names


CLASS_NAMES = _class_names()


def _shown(html: str, *, folded: bool = True) -> str:
    """The page's visible words (the <main> element, tags removed, spaces collapsed);
    ``folded=False``: without what "Details" elements fold away."""
    found = re.search(r"<main\b.*?</main>", html, re.S)
    text = found.group(0) if found else html
    if not folded:
        text = re.sub(r'<details class="more">.*?</details>', " ", text, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(text.replace("&#39;", "'").replace("&amp;", "&").split())


def _no_class_names(text: str) -> None:
    words = set(re.findall(r"[A-Za-z_]+", text))
    assert not words & CLASS_NAMES, (words & CLASS_NAMES, text[:400])


def _record(folder: Path, query: str, status: int, headers: dict[str, str]) -> None:
    """Every lane of ``query`` answers ``status`` with ``headers``."""
    write_cassette(folder, query, b'{"error": "no"}', status=status, headers=headers)


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    folder = tmp_path / "cassette"
    _record(folder, "busy topic", 429, {"retry-after": "30"})
    _record(folder, "down topic", 503, {})
    _record(folder, "locked topic", 403, {})
    write_cassette(folder, "fine topic", epmc_body([epmc_record(1)]))
    return folder


def test_the_class_tree_is_walked() -> None:
    assert {"LitdeskError", "CassetteMiss", "TransportFailed", "InputError"} <= CLASS_NAMES
    assert len(CLASS_NAMES) > 50


def test_error_pages_speak_plainly_with_the_code_folded(running: Running) -> None:
    pages = {
        "/search?q=missing+topic": 404,  # the replayed recording lacks this search
        "/nowhere": 404,
        "/study/no-such-study": 404,
        "/search?q=x&year_from=abc": 422,
        "/search?q=(((": 400,
        "/search?q=busy+topic": 429,
        "/search?q=down+topic": 503,
        "/search?q=locked+topic": 503,
    }
    with running.client() as c:
        answers = {url: c.get(url) for url in pages}
    for url, status in pages.items():
        r = answers[url]
        assert r.status_code == status, (url, r.status_code)
        text = _shown(r.text)
        _no_class_names(text)
        unfolded = _shown(r.text, folded=False)
        assert "HTTP 4" not in unfolded and "HTTP 5" not in unfolded, (url, unfolded)
    miss = _shown(answers["/search?q=missing+topic"].text)
    assert "This search is not among the recorded answers" in miss
    assert "without --replay" in miss
    assert miss.count("ebi.ac.uk") == 0  # the request is not repeated at the person
    assert "Try again in 30 seconds, or search the other databases" in _shown(
        answers["/search?q=busy+topic"].text
    )
    down = _shown(answers["/search?q=down+topic"].text)
    assert "Europe PMC is not working just now" in down
    assert "Europe PMC, keyword search" in down and "europepmc-keyword" not in down
    locked = _shown(answers["/search?q=locked+topic"].text)
    assert "its key or allowance was not accepted" in locked
    not_found = answers["/study/no-such-study"].text
    assert '<details class="more">' in not_found
    assert "pick it from its list" in _shown(not_found)
    assert "Year from: input should be a valid integer" in _shown(
        answers["/search?q=x&year_from=abc"].text
    )


def test_one_message_per_error(running: Running) -> None:
    with running.client() as c:
        bad_query = _shown(c.get("/search?q=(((").text)
        not_found = _shown(c.get("/study/no-such-study").text)
    problem = "the query has no letter or digit"
    assert bad_query.lower().count(problem) == 1, bad_query
    assert "the query needs a correction" in bad_query
    assert not_found.lower().count("no study") == 1, not_found


def test_the_api_keeps_its_fields_and_adds_a_hint(running: Running) -> None:
    with running.client() as c:
        miss = c.get("/api/v1/search", params={"q": "missing topic"}).json()
        gone = c.get("/api/v1/nowhere").json()
    assert miss["error"] == "CassetteMiss" and miss["code"] == "cassette_miss"
    assert "record it first" in miss["message"]
    assert miss["hint"].startswith("This search is not among the recorded answers")
    _no_class_names(miss["hint"])
    assert gone["code"] == "not_found" and gone["hint"].startswith("There is no page")


def test_the_guards_refusals_say_what_to_do(running: Running) -> None:
    with running.client() as c:
        page = c.post("/study/x/rename", data={"name": "y"})
        api = c.post("/api/v1/studies", json={"name": "y"})
    assert page.status_code == 403 and page.text.startswith("Refused: ")
    assert "Reload the page" in page.text or "reload the page" in page.text
    _no_class_names(page.text)
    assert api.json()["code"].startswith("origin") and api.json()["hint"].startswith("Refused: ")


def test_a_live_search_the_recording_lacks_ends_in_words(running: Running) -> None:
    from tests.faces.web.test_live import LIVE, _events

    with running.writer() as c:
        started = c.post(LIVE, json={"q": "missing topic"})
        assert started.status_code == 202, started.text
        events = _events(c, started.json()["id"])
        state = c.get(f"{LIVE}/{started.json()['id']}").json()
    last = events[-1]
    assert last["state"] == "failed" and last["code"] == "cassette_miss"
    for view in (last, state):
        assert view["hint"].startswith("This search is not among the recorded answers")
        _no_class_names(view["hint"])
    assert {lane["label"] for lane in last["lanes"]} == {"Europe PMC, keyword search"}


def test_a_form_problem_away_from_the_query_reads_as_sentences(running: Running) -> None:
    with running.client() as c:
        page = c.get("/search", params={"q": "x", "year_from": 2020, "year_to": 2000})
    assert page.status_code == 400
    text = _shown(page.text)
    assert "The search was not run: " in text and ". Correct it and try again." in text
    assert text.count("Correct it and try again.") == 1
