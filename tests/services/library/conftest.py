from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._text_pdfs import write_pdf

from litdesk.adapters.embeddings import WordLlamaEmbedder


@pytest.fixture(scope="session")
def wordllama(tmp_path_factory: pytest.TempPathFactory) -> WordLlamaEmbedder:
    """One wordllama model for the whole session (kept out of hot loops)."""
    return WordLlamaEmbedder(tmp_path_factory.mktemp("wl-models"))


@pytest.fixture
def make_pdf() -> Callable[[Path, list[str]], Path]:
    """A PDF of the pages at the path (made once per content in a process: the folder most
    tests index is the same three PDFs)."""
    return write_pdf


from tests.adapters.store.conftest import pg_schema  # noqa: E402,F401 - fixture re-export


@pytest.fixture(params=["sqlite", "postgres"])
def library_db(request: pytest.FixtureRequest) -> str | None:
    """The store of a library test: ``None`` (SQLite in the data dir) or a fresh PG schema."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("pg_schema")
    return url


@pytest.fixture(autouse=True)
def _close_libraries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every Library a test makes is closed at its end (its store's connections too)."""
    from litdesk.services.library import Library

    made: list[Library] = []
    original = Library.__init__

    def init(self: Library, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Library, "__init__", init)
    yield
    for lib in made:
        lib.close()
