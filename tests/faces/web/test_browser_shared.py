"""The browser tests' chromium is one per test process, shared by the test files
(``tests/conftest.py``): a file gets it with no context open (the contexts of the files
before it were closed at their end), and a test that does not use it sees no running event
loop, so ``asyncio.run`` works as without Playwright, whose sync API marks its loop as the
thread's running loop after every call; the browser answers again after such a test."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytestmark = pytest.mark.slow

PAGE = "data:text/html,<p id=said>shared</p>"


def _said(browser: Any) -> str:
    context = browser.new_context()
    page = context.new_page()
    page.goto(PAGE)
    said: str = page.text_content("#said")
    context.close()
    return said


def test_a_file_gets_the_browser_with_no_context_open(browser: Any) -> None:
    assert browser.is_connected()
    assert browser.contexts == []
    left_open = browser.new_context()  # closed at this file's end (the next file sees none)
    left_open.new_page().goto(PAGE)
    assert _said(browser) == "shared"


def test_asyncio_runs_in_a_test_that_uses_no_browser() -> None:
    assert asyncio._get_running_loop() is None  # type: ignore[attr-defined]

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert asyncio.run(answer()) == 42


def test_the_browser_answers_after_asyncio_ran(browser: Any) -> None:
    assert len(browser.contexts) == 1  # the first test's, left open: same file, same browser
    assert _said(browser) == "shared"
