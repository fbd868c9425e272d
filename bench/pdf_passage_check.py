"""PDF passage matching on the real fixture PDFs (branch walk3).

Real quotes: every pair of consecutive text lines (first 5 per page, 20 characters each
side of the break, joined by a space, pdfium's U+FFFE hyphen marks dropped) and every
hyphenated line break (first 3 per page, the word written joined). Altered quotes: a
comparison sign flipped, a decimal point dropped. Prints how many were found.

    LITDESK_FIXTURES=/work/shared/fixtures PYTHONPATH=src .venv/bin/python bench/pdf_passage_check.py
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pypdfium2 as pdfium

from litdesk.adapters.pdf import PdfExcluded, passage_boxes


def found(path: Path, page: int, quote: str) -> bool:
    try:
        passage_boxes(path, page, quote)
    except PdfExcluded:
        return False
    return True


def main() -> None:
    root = Path(os.environ["LITDESK_FIXTURES"]) / "pdf"
    real = real_found = altered = altered_found = 0
    for path in sorted(root.glob("*.pdf")):
        try:
            doc = pdfium.PdfDocument(path)
        except pdfium.PdfiumError:
            continue
        for i in range(len(doc)):
            text = doc[i].get_textpage().get_text_range()
            quotes = [
                m.group(1) + m.group(2)
                for m in list(re.finditer(r"(\w+ \w+ \w+)-\r\n([a-z]+ \w+ \w+)", text))[:3]
            ]
            quotes += [
                (m.group(1) + " " + m.group(2)).replace("\ufffe", "")
                for m in list(re.finditer(r"([^\r\n]{20})\r\n([^\r\n]{20})", text))[:5]
            ]
            for q in quotes:
                real += 1
                real_found += found(path, i + 1, q)
            for m in list(re.finditer(r"[^\r\n]{12}(?:[<>]|\d\.\d)[^\r\n]{8}", text))[:3]:
                q = m.group(0)
                alt = q.translate(str.maketrans("<>", "><")) if re.search("[<>]", q) else None
                alt = alt or re.sub(r"(\d)\.(\d)", r"\1\2", q, count=1)
                if alt.strip() and alt not in text:
                    altered += 1
                    altered_found += found(path, i + 1, alt)
    print(f"real quotes: {real_found} of {real} found")
    print(
        f"altered quotes (a sign flipped, a decimal point dropped): {altered_found} of {altered} found"
    )


if __name__ == "__main__":
    main()
