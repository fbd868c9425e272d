"""Which retrieved excerpts an answer shows (issue 32): the relevance cut on judged questions.

Indexes every PDF of ``$LITDESK_FIXTURES/pdf/`` as one library (as
``bench/retrieval_quality.py``), retrieves the ``top_k`` excerpts of every judged question
with the shipped default and applies each candidate rule for which excerpts an answer shows
(:func:`litdesk.core.library.split_relevant` with the rule's needed support). Per rule:

* singles: the gold page among the excerpts shown (of the questions whose gold page was
  retrieved at all), and the excerpts shown from other papers than the gold's (padding);
* cross: both gold pages shown;
* excerpts shown per question (mean), and per off-library question that did not abstain.

Rules: ``shipped`` (the library's own: ``Library.relevance_needed``), ``abs`` (the
abstention threshold that applied), ``rel R`` (R times the best excerpt's support),
``abs*F|rel R`` (the lower of F times the threshold and R times the best).

    LITDESK_FIXTURES=/work/shared/fixtures .venv/bin/python bench/relevance_quality.py \
        [--questions FILE] [--top-k 8]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from litdesk._settings import Settings
from litdesk.core.library import split_relevant
from litdesk.services.app import app_library
from litdesk.services.library import Retrieval
from retrieval_quality import OFF_LIBRARY, OFF_LIBRARY_HELD_OUT

Rule = Callable[[Retrieval], float]


def rules() -> dict[str, Rule]:
    def thr(f: Retrieval) -> float:
        return f.threshold or 0.0

    def best(f: Retrieval) -> float:
        return f.support or 0.0

    out: dict[str, Rule] = {"none": lambda f: -1.0, "abs": thr}
    for r in (0.3, 0.4, 0.5, 0.6):
        out[f"rel {r}"] = lambda f, r=r: r * best(f)
    for fl in (0.5, 0.7):
        for r in (0.4, 0.5, 0.6):
            out[f"abs*{fl}|rel {r}"] = lambda f, fl=fl, r=r: max(
                fl * thr(f), min(thr(f), r * best(f))
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top-k", type=int, default=8)
    ap.add_argument("--questions", type=Path, default=None)
    args = ap.parse_args()
    fixtures = Path(os.environ["LITDESK_FIXTURES"])
    source = args.questions or fixtures / "questions" / "questions.jsonl"
    questions = [json.loads(x) for x in source.read_text().splitlines() if x.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp) / "data",
            library_dirs=[fixtures / "pdf"],
            embedder="wordllama+use-m3",
        )
        lib = app_library(settings, workers=2)
        lib.index()
        found = [(q, lib.retrieve(q["question"], top_k=args.top_k)) for q in questions]
        off = [lib.retrieve(q, top_k=args.top_k) for q in OFF_LIBRARY + OFF_LIBRARY_HELD_OUT]
        shipped = getattr(lib, "relevance_needed", None)
        lib.close()
    table = rules()
    if shipped is not None:
        table = {"shipped": shipped, **table}
    print(f"{len(questions)} questions from {source}, top_k {args.top_k}")
    print(
        "| rule | singles gold shown | foreign excerpts per single | cross both shown | shown per question | shown per off-library answer |"
    )
    print("|---|---|---|---|---|---|")
    for name, needed_of in table.items():
        s_hit = s_n = c_hit = c_n = 0
        foreign: list[int] = []
        shown_n: list[int] = []
        lost: list[str] = []
        for q, f in found:
            split = split_relevant([h.support for h in f.hits], needed_of(f))
            shown = [(f.hits[i].file, f.hits[i].page) for i in split.shown]
            shown_n.append(len(shown))
            golds = [(g["file"], g["page"]) for g in q["gold"]]
            got = [(h.file, h.page) for h in f.hits]
            if q["kind"] == "single":
                if golds[0] in got:
                    s_n += 1
                    s_hit += golds[0] in shown
                    if golds[0] not in shown:
                        lost.append(q["id"])
                foreign.append(sum(1 for file, _ in shown if file != golds[0][0]))
            elif all(g in got for g in golds):
                c_n += 1
                ok = all(g in shown for g in golds)
                c_hit += ok
                if not ok:
                    lost.append(q["id"])
        off_shown = [
            len(split_relevant([h.support for h in f.hits], needed_of(f)).shown)
            for f in off
            if not f.abstained
        ]
        cells = [
            name,
            f"{s_hit}/{s_n}",
            f"{statistics.mean(foreign):.2f}",
            f"{c_hit}/{c_n}",
            f"{statistics.mean(shown_n):.2f}",
            f"{statistics.mean(off_shown):.2f} ({len(off_shown)} answered)" if off_shown else "-",
        ]
        print("| " + " | ".join(cells) + " |")
        if lost:
            print(f"    {name} drops gold of: {', '.join(lost)}")


if __name__ == "__main__":
    main()
