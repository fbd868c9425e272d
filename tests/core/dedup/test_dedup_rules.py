"""One test per deduplication rule added in litdesk-dedup-v2: a pair that must merge (or
be linked) and a near miss that must not. Tiny hand-written records."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.dedup import (
    _normalize,
    deduplicate,
    first_author_surname,
    journal_key,
    journal_matches,
    normalize_title,
    page_range,
    registry_ids,
    title_info,
    volume_key,
)
from litdesk.core.records import Paper, make_paper

TITLE = "Complement factor H mutations in familial atypical haemolytic uraemic syndrome"


def P(title: str, **kw: object) -> Paper:
    return make_paper(title=title, fallback_key=title + repr(sorted(kw.items())), **kw)  # type: ignore[arg-type]


ART = dict(
    authors=("Warwicker, P.", "Goodship, T. H."),
    year=2001,
    journal="Kidney International",
    volume="60",
    issue="3",
    pages="1210-1218",
)


def decision(res, a: int = 0, b: int = 1) -> str:  # type: ignore[no-untyped-def]
    return next(p.decision for p in res.pairs if (p.a, p.b) == (a, b))


# --- titles ----------------------------------------------------------------------------


def test_nested_and_truncated_notes_are_stripped() -> None:
    nested = TITLE + ".[Erratum appears in Kidney Int. 2002 Jan;61(1):371 Note: Smith, J [added]]"
    truncated = TITLE + ".[Erratum appears in Kidney Int. 2002 Ja"
    assert normalize_title(nested) == normalize_title(TITLE)
    assert normalize_title(truncated) == normalize_title(TITLE)
    # a bracket inside the title is kept
    assert normalize_title("The [3H]thymidine uptake of lymphocytes") == (
        "the 3h thymidine uptake of lymphocytes"
    )


def test_title_info_kinds_and_citations() -> None:
    wos = title_info(TITLE + " (vol 60, pg 1210, 2001)")
    assert (wos.kind, wos.cites) == ("correction", (("60", "1210"),))
    embase = title_info(TITLE + " (Kidney International (2001) 60 (1210-1218))")
    assert (embase.kind, embase.cites) == ("correction", (("60", "1210"),))
    cut = "Erratum: " + TITLE + " (Kidney International (Septem"
    assert title_info(cut).kind == "correction"
    assert normalize_title(cut) == normalize_title(TITLE)
    note = title_info(TITLE + ".[Erratum appears in Kidney Int. 2002 Jan;61(1):371]")
    assert (note.kind, note.erratum_in) == ("article", (("61", "1", "371"),))
    assert title_info(TITLE + " - Reply").kind == "reply"
    assert title_info(TITLE + " AUTHORS REPLY").kind == "reply"
    assert title_info(TITLE + " (multiple letters) [1]").kind == "letters"
    assert normalize_title(TITLE + ": Brief communication") == normalize_title(TITLE)
    # near misses: words that only look like markers
    assert title_info("Correction of anaemia with epoetin in dialysis patients").kind == "article"
    assert title_info("Genetics of HUS: response to treatment and outcome").kind == "article"
    assert title_info("The immune response").kind == "article"


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_new_normalisers_never_raise(text: str) -> None:
    info = title_info(text)
    assert info.kind in ("article", "correction", "reply", "letters")
    page_range(text)
    volume_key(text)
    registry_ids(text)
    first_author_surname([text, "x"])


_HINT_WORDS = ("Reply", "ERRAT", "corr", "NcT", "ChiCTR", "(", "[", "2004-123456-12", "ſ", "İ")


@given(
    st.one_of(
        st.text(max_size=120),
        st.lists(st.sampled_from(_HINT_WORDS) | st.text(max_size=6), max_size=8).map(" ".join),
    )
)
@settings(max_examples=300, deadline=None)
def test_case_insensitive_prechecks_answer_as_ignorecase(text: str) -> None:
    # the pre-checks search lower-cased ASCII text without IGNORECASE: same answer
    for hint in (_normalize._MARKER_HINT, _normalize._REGISTRY_HINT):
        pattern = hint._folded.pattern
        assert hint(text) == (re.search(pattern, text, re.IGNORECASE) is not None), pattern


def test_pages_volumes_registry_numbers() -> None:
    assert page_range("943-5") == (943, 945)
    assert page_range("c219-c235") == (219, 235)
    assert page_range("abc") is None
    assert volume_key("Drug Discovery. 9") == "9" and volume_key("145 Suppl 1") == "145"
    assert volume_key("009") == "9" and volume_key("IV") == "iv"
    assert registry_ids("NCT01223521; ISRCTN35833344", None) == {
        "nct": {"01223521"},
        "isrctn": {"35833344"},
    }


# --- rule E: corrections ----------------------------------------------------------------


def test_correction_notice_merges_only_when_asked_and_tied() -> None:
    article = P(TITLE, **ART)
    notice = P(
        TITLE + " (vol 60, pg 1210, 2001)",
        **ART | {"authors": ("Warwicker, P.",), "year": 2002, "volume": "61", "pages": "371"},
    )
    default = deduplicate([article, notice])
    assert default.groups == [[0], [1]] and decision(default) == "review"
    merged = deduplicate([article, notice], merge_corrections=True)
    assert merged.groups == [[0, 1]] and "rule E" in merged.pairs[0].reason
    # near miss: the notice cites another article (other volume and page), other volume
    other = P(
        TITLE + " (vol 58, pg 100, 2000)",
        **ART | {"authors": ("Warwicker, P.",), "year": 2002, "volume": "61", "pages": "371"},
    )
    res = deduplicate([article, other], merge_corrections=True)
    assert res.groups == [[0], [1]] and decision(res) == "review"


def test_unmarked_one_page_item_later_in_the_volume_is_a_correction() -> None:
    article = P(TITLE, **ART)
    later = P(TITLE, **ART | {"issue": "6", "pages": "2300"})
    res = deduplicate([article, later])
    assert res.groups == [[0], [1]] and decision(res) == "review"
    assert deduplicate([article, later], merge_corrections=True).groups == [[0, 1]]
    # near miss: a one-page item *earlier* in the volume is no correction; rule C would
    # merge it, but another issue and pages not overlapping veto that (issue 30: waits)
    abstract = P(TITLE, **ART | {"issue": "1", "pages": "12"})
    res = deduplicate([abstract, article])
    assert res.groups == [[0], [1]] and decision(res) == "review"
    assert "vetoed: different issues of volume 60" in res.pairs[0].reason
    assert "rule C" in res.pairs[0].reason and "kinds" not in res.pairs[0].evidence
    # rule C still merges a page typo inside the same issue (the ranges overlap)
    typo = P(TITLE, **ART | {"pages": "1210-1281"})
    res = deduplicate([typo, P(TITLE, **ART | {"pages": "1212-1218"})])
    assert res.groups == [[0, 1]] and "rule C" in res.pairs[0].reason


# --- rule L and replies -----------------------------------------------------------------


def test_multiple_letters_record_joins_the_letters_it_contains() -> None:
    lett = dict(ART, pages="943-945")
    # the record of several letters lists the authors of all of them
    bundle = P(TITLE + " (multiple letters) [1]",
               **lett | {"authors": ("Warwicker, P.", "Goodship, T. H.", "Shepherd, A. B.")})  # fmt: skip
    letter = P(TITLE, **lett | {"pages": "943-944"})
    reply = P(TITLE + " - Reply", **lett | {"authors": ("Shepherd, A. B.",), "pages": "945"})
    res = deduplicate([bundle, letter, reply])
    assert any("rule L" in p.reason for p in res.pairs)
    # the letter and the reply are not the same item: a group holding all three would
    # only hold by chaining, so the second join waits for review (issue 12)
    assert res.groups == [[0, 1], [2]] or res.groups == [[0, 2], [1]]
    (chained,) = [p for p in res.pairs if "chain" in p.evidence]
    assert chained.decision == "review" and "merge would chain" in chained.reason
    assert deduplicate([bundle, reply]).groups == [[0, 1]]
    # near miss: a reply outside the record's page range stays apart
    far = P(TITLE + " - Reply", **lett | {"authors": ("Shepherd, A. B.",), "pages": "990"})
    res = deduplicate([bundle, far])
    assert res.groups == [[0], [1]]


def test_reply_and_letter_are_linked_not_merged() -> None:
    letter = P(TITLE, **ART | {"pages": "1511"})
    reply = P(TITLE + " AUTHORS REPLY", **ART | {"pages": "1511"})
    res = deduplicate([letter, reply])
    assert res.groups == [[0], [1]] and decision(res) == "linked"
    # two copies of the reply are still duplicates of each other
    res = deduplicate([reply, P(TITLE + " - Reply", **ART | {"pages": "1511-1511"})])
    assert res.groups == [[0, 1]]


# --- fields -----------------------------------------------------------------------------


def test_fields_shifted_by_one_place_are_recognised() -> None:
    a = P("The treatment of atypical HUS", authors=("Loirat, C.",), year=2011,
          journal="Pediatric Nephrology", volume="26", issue="9", pages="1746")  # fmt: skip
    shifted = P("The treatment of atypical HUS", authors=("Loirat, C.",), year=2011,
                journal="Pediatric Nephrology", issue="26", pages="9")  # fmt: skip
    res = deduplicate([a, shifted])
    assert res.groups == [[0, 1]] and res.pairs[0].evidence["fields_shifted"] is True
    # near miss: the issue and page do not hold the other's volume and issue
    other = P("The treatment of atypical HUS", authors=("Loirat, C.",), year=2011,
              journal="Pediatric Nephrology", issue="27", pages="9")  # fmt: skip
    assert deduplicate([a, other]).groups == [[0], [1]]


def test_volume_with_spilled_journal_words() -> None:
    base = dict(authors=("Wagner, E.", "Frank, M. M."), year=2010, pages="43-56")
    t = "Therapeutic potential of complement modulation"
    a = P(t, journal="Nature Reviews Drug Discovery", volume="9", **base)
    b = P(t + ".", journal="Nature Reviews", volume="Drug Discovery. 9", **base)
    assert deduplicate([a, b]).groups == [[0, 1]]
    c = P(t + ".", journal="Nature Reviews", volume="Drug Discovery. 8", **base)
    assert deduplicate([a, c]).groups == [[0], [1]]


def test_meeting_named_in_both_venues_matches() -> None:
    meeting = "23rd Congress of the International Society on Thrombosis and Haemostasis Kyoto"
    assert journal_matches(
        journal_key("Journal of Thrombosis and Haemostasis.Conference: " + meeting),
        journal_key(meeting + "."),
    )
    assert not journal_matches(
        journal_key("Journal of Thrombosis and Haemostasis.Conference: " + meeting),
        journal_key("24th Congress of the European Haematology Association Amsterdam"),
    )
    t = "Eculizumab therapy for atypical HUS in paediatric patients: a retrospective study"
    base = dict(authors=("Gruppo, R.", "Rodig, N."), year=2011, volume="9")
    a = P(t, journal="Journal of Thrombosis and Haemostasis.Conference: " + meeting, **base)
    b = P(t, journal=meeting + ".", **base)
    c = P(t, journal="24th Congress of the European Haematology Association Amsterdam", **base)
    assert deduplicate([a, b]).groups == [[0, 1]]
    res = deduplicate([a, c])
    assert res.groups == [[0], [1]] and decision(res) == "review"


def test_first_author_particles_and_compound_surnames() -> None:
    assert first_author_surname(["Le, Quintrec M."]) == "quintrec"
    t = "Anti-factor H autoantibodies in a fifth renal transplant recipient"
    base = dict(year=2009, journal="Am J Transplant", volume="9", pages="1223-1229")
    a = P(t, authors=("Le, Quintrec M.", "Zuber, J."), **base)
    b = P(t + " with aHUS", authors=("Le Quintrec, M.", "Zuber, J."), **base)
    c = P(t, authors=("Goicoechea de, Jorge E.", "Harris, C. L."), **base)
    d = P(t + " with aHUS", authors=("de Jorge, E. G.", "Harris, C. L."), **base)
    assert deduplicate([a, b]).groups == [[0, 1]]  # rule B needs the same first author
    assert deduplicate([c, d]).groups == [[0, 1]]
    e = P(t + " with aHUS", authors=("Quintana, M.", "Zuber, J."), **base)
    assert deduplicate([a, e]).groups == [[0], [1]]


def test_trial_registry_numbers_conflict() -> None:
    t = "Open label controlled trial of eculizumab in adult patients with atypical HUS"
    a = P(t, authors=("Alexion Pharmaceuticals",), year=2011, journal="NCT00844545")
    b = P(t, authors=("Alexion Pharmaceuticals",), year=2011, journal="NCT00844545")
    c = P(t, authors=("Alexion Pharmaceuticals",), year=2011, journal="NCT00838513")
    assert deduplicate([a, b]).groups == [[0, 1]]
    res = deduplicate([a, c])
    assert res.groups == [[0], [1]]
    assert decision(res) == "distinct" and "nct" in res.pairs[0].reason
