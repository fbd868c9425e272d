"""The per-process cache of PDF page texts: reuse only for the very bytes, and bounded."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from litdesk.adapters.pdf import file_sha256, read_pages, read_pages_digest
from litdesk.adapters.pdf._page_cache import PAGE_TEXTS, PageTextCache


def _pdf(path: Path, pages: list[str]) -> Path:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path


def test_the_text_of_the_same_bytes_is_read_once_and_changed_bytes_are_read_again(
    tmp_path: Path,
) -> None:
    PAGE_TEXTS.clear()
    path = _pdf(tmp_path / "a.pdf", ["First page about estuaries.", "Second page."])
    digest, pages = read_pages_digest(path)
    assert digest == file_sha256(path) and pages == read_pages(path)
    assert len(PAGE_TEXTS) == 1
    pages.append("changed by a caller")  # a caller's list is its own
    again = read_pages_digest(path)
    assert again == (digest, read_pages(path))
    # the same path, other bytes: the new digest and the new text, never the kept one
    _pdf(path, ["A different first page about rivers."])
    digest2, pages2 = read_pages_digest(path)
    assert digest2 != digest and digest2 == file_sha256(path)
    assert pages2 == read_pages(path) and "rivers" in pages2[0]
    assert len(PAGE_TEXTS) == 2
    PAGE_TEXTS.clear()


def test_the_cache_keeps_a_few_pdfs_and_a_bounded_amount_of_text() -> None:
    cache = PageTextCache(max_pdfs=2, max_chars=100)
    cache.put("a", ["x" * 30])
    cache.put("b", ["y" * 30])
    assert cache.get("a") == ["x" * 30]  # a is now the most recently used
    cache.put("c", ["z" * 30])  # over two PDFs: b (least recently used) goes
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 2
    cache.put("d", ["w" * 60])  # 90 + 60 chars over 100: the oldest go until it fits
    assert cache.chars <= 100 and cache.get("d") == ["w" * 60]
    assert cache.get("c") is None
    cache.put("e", ["v" * 101])  # over the bound alone: not kept, nothing evicted for it
    assert cache.get("e") is None and cache.get("d") is not None
    cache.put("d", ["u" * 10])  # replacing an entry counts its text once
    assert cache.chars == sum(len(p) for k in ("a", "d") for p in cache.get(k) or [])
    cache.clear()
    assert len(cache) == 0 and cache.chars == 0
