"""Bounds and parse cost of AI suggestions for a Study's own form (pure core; no model).

Run: PYTHONPATH=src .venv/bin/python bench/form_suggest_bounds.py"""

from __future__ import annotations

import json
import statistics
import time

from litdesk.core.assist import (
    SourceBlock,
    ask_form,
    bound_source,
    extraction_message,
    form_answer_chars,
    form_extraction_message,
    form_max_tokens,
    parse_form_extraction,
)
from litdesk.core.forms import MAX_FIELDS, MAX_OPTIONS, Form, FormField, pico_form, rob2_form

PARA = (
    "Participants were randomised to artesunate or quinine; the sample was 120 children "
    "and outcome assessors were blinded to the allocation in every centre. "
) * 60
SOURCE = bound_source([SourceBlock(f"p{i}", "Results", PARA) for i in range(1, 5)])


def _forms() -> list[tuple[str, Form]]:
    options = tuple(f"opt {j:02d} " + "x" * 190 for j in range(MAX_OPTIONS))
    worst = Form(
        tuple(
            FormField(f"f{i:02d}", f"Field {i} " + "L" * 150, "choice", options=options,
                      help="h" * 1000)
            for i in range(MAX_FIELDS)
        )
    )  # fmt: skip
    texts = Form(
        tuple(FormField(f"t{i:02d}", f"Text field {i}", help="h" * 1000) for i in range(MAX_FIELDS))
    )
    trial = Form(
        (
            FormField("sample_size", "Sample size", "number"),
            FormField("design", "Design", "choice", options=("RCT", "cohort", "case-control")),
            FormField("blinded", "Blinded", "yesno"),
            FormField("setting", "Setting"),
        )
    )
    return [
        ("worst choice form (60 x 30 options of 200 chars, 1,000-char help)", worst),
        ("60 text fields, 1,000-char help", texts),
        ("4-field trial form", trial),
        ("PICO/PECO template", pico_form()),
        ("RoB 2 template", rob2_form()),
    ]


def _item() -> dict[str, str]:
    return {"value": "v" * 1000, "quote": PARA[:1400], "block": "p3"}


def main() -> None:
    for name, form in _forms():
        a = ask_form(form)
        msg = form_extraction_message("T", SOURCE, a, coverage="full text")
        desc = len(json.dumps(json.loads(msg)["fields"], ensure_ascii=False))
        print(
            f"{name}: asked {len(a.fields)}/{len(form.fields)}, fields description {desc:,} "
            f"chars, message {len(msg):,} chars (blocks {SOURCE.characters:,}), max_tokens "
            f"{form_max_tokens(a):,}, answer bound {form_answer_chars(a):,} chars"
        )
    six = extraction_message("T", SOURCE, coverage="full text")
    print(f"six-field message for the same blocks: {len(six):,} chars")
    a = ask_form(_forms()[1][1])
    answer = json.dumps({"finding": _item(), "fields": {k: _item() for k in a.keys}})
    print(
        f"largest parse: {len(a.fields)} text fields, answer {len(answer):,} chars "
        f"(bound {form_answer_chars(a):,})"
    )
    runs = []
    kept = 0
    for _ in range(30):
        t = time.perf_counter()
        kept = len(parse_form_extraction(answer, SOURCE, a).fields)
        runs.append(time.perf_counter() - t)
    print(
        f"parse_form_extraction: median {statistics.median(runs) * 1000:.1f} ms, max "
        f"{max(runs) * 1000:.1f} ms over 30 runs; kept {kept}"
    )


if __name__ == "__main__":
    main()
