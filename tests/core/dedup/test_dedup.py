from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.dedup import (
    Confusion,
    deduplicate,
    evaluate_flags,
    evaluate_groups,
    first_author_surname,
    first_page,
    journal_key,
    journal_matches,
    normalize_title,
)
from litdesk.core.records import Paper, make_paper


def P(title: str, **kw: object) -> Paper:
    return make_paper(title=title, fallback_key=title + repr(sorted(kw.items())), **kw)  # type: ignore[arg-type]


def test_normalize_title() -> None:
    assert normalize_title("The <i>TNF-α</i> pathway: a Review. [Review] [French]") == (
        "the tnf alpha pathway a review"
    )
    assert normalize_title(r"Caf\'e {\"U}ber $\beta$-cells") == normalize_title("Café Über β-cells")
    assert normalize_title("[Current aspects of haemolysis]. [Romanian]") == (
        "current aspects of haemolysis"
    )
    assert normalize_title(None) == ""


@given(st.text(max_size=200))
@settings(max_examples=150, deadline=None)
def test_normalisers_never_raise(text: str) -> None:
    t = normalize_title(text)
    assert t == t.strip() and "  " not in t
    first_author_surname([text])
    first_page(text)
    journal_matches(journal_key(text), journal_key("Nature"))


def test_names_pages_journals() -> None:
    assert first_author_surname(["Zuber, J", "X"]) == "zuber"
    assert first_author_surname(["Smith JA"]) == "smith"
    assert first_author_surname(["John van der Berg"]) == "berg"
    assert first_author_surname(["Le, Quintrec M."]) == "quintrec"
    assert first_page("0548-555") == "548"
    assert first_page("e1234") == "e1234"
    assert journal_matches(journal_key("Nat Rev Nephrol"), journal_key("Nature Reviews Nephrology"))
    assert journal_matches(
        journal_key("Pediatric Nephrology"), journal_key("Pediatric Nephrology. Conference")
    )
    assert not journal_matches(journal_key("Blood"), journal_key("Kidney International"))


BASE = dict(
    authors=("Zipfel, P. F.", "Skerka, C."),
    year=2006,
    journal="Curr Opin Rheumatol",
    volume="18",
    pages="548-555",
)


def test_near_identical_records_merge_with_reason() -> None:
    a = P("Complement dysfunction in hemolytic uremic syndrome", **BASE)
    b = P(
        "Complement dysfunction in hemolytic uremic syndrome.",
        **{**BASE, "journal": "Current Opinion in Rheumatology"},
    )
    c = P("Something else entirely about kidneys", **BASE | {"pages": "1-2", "volume": "3"})
    res = deduplicate([a, b, c])
    assert res.groups == [[0, 1], [2]]
    pair = next(p for p in res.pairs if (p.a, p.b) == (0, 1))
    assert pair.decision == "merge" and pair.reason.startswith("rule")
    assert pair.evidence["author"] is True and pair.evidence["page"] is True


def test_conflicting_identifiers_never_merge() -> None:
    a = P("Complement dysfunction in hemolytic uremic syndrome", doi="10.1000/a", **BASE)
    b = P("Complement dysfunction in hemolytic uremic syndrome", doi="10.1000/b", **BASE)
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]
    assert any(p.decision == "distinct" and "doi" in p.reason for p in res.pairs)


def test_identifier_stage_merges_first() -> None:
    a = P("Cerebral small vessel disease and stroke", doi="10.1000/x")
    b = P("Cerebral small vessel disease and stroke.", doi="10.1000/X", pmid="5")
    res = deduplicate([a, b])
    assert res.groups == [[0, 1]]
    assert res.counts["stage1_merged"] == 1
    assert res.pairs[0].stage == 1 and res.pairs[0].evidence["identifiers"] == ["doi"]
    assert res.conflicts == []


def test_shared_identifier_with_different_titles_is_not_merged() -> None:
    # formerly merged in stage 1: a DOI is strong evidence, not proof
    a = P("A title about renal outcomes", doi="10.1000/x")
    b = P("Completely different title text", doi="10.1000/X", pmid="5")
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]
    assert res.counts["stage1_merged"] == 0 and res.counts["shared_id_conflicts"] == 1
    (c,) = res.conflicts
    assert c.kind == "shared" and c.namespace == "doi" and c.members == (0, 1)
    assert "DOI shared by 2 records with different titles" in c.message


def test_preprint_and_published_are_linked_not_merged() -> None:
    pre = P(
        "Deep learning for protein folding at scale",
        authors=("Lee, K",),
        year=2020,
        journal="bioRxiv",
        doi="10.1101/2020.01.01.1",
    )
    pub = P(
        "Deep learning for protein folding at scale",
        authors=("Lee, K",),
        year=2021,
        journal="Nature",
        volume="590",
        pages="1-9",
    )
    res = deduplicate([pre, pub])
    assert res.groups == [[0], [1]]
    assert [p.decision for p in res.pairs] == ["linked"]


def test_no_title_never_merges_on_other_fields() -> None:
    a = make_paper(title="", fallback_key="a", **BASE)  # type: ignore[arg-type]
    b = make_paper(title="", fallback_key="b", **BASE)  # type: ignore[arg-type]
    assert deduplicate([a, b]).groups == [[0], [1]]


def test_review_band_and_reviewer_decisions_are_reversible() -> None:
    a = P(
        "Neurological involvement in a child with atypical hemolytic uremic syndrome",
        authors=("Koehl, B",),
        year=2010,
        journal="Pediatr Nephrol",
        volume="25",
        pages="1875",
    )
    b = P(
        "Neurological involvement in a child with atypical hemolytic uremic syndrome",
        authors=("Koehl, B",),
        year=2010,
        journal="Ann Neurol",
        volume="25",
        pages="2539-2542",
    )
    res = deduplicate([a, b])
    assert [p.decision for p in res.pairs] == ["review"] and res.groups == [[0], [1]]
    merged = deduplicate([a, b], reviewed={(0, 1): "merge"})
    assert merged.groups == [[0, 1]] and merged.pairs[0].reason.startswith("reviewer")
    assert deduplicate([a, b], reviewed={(0, 1): "merge"}, auto_only=True).groups == [[0], [1]]


def test_transitive_merge_never_joins_conflicting_identifiers() -> None:
    t = "Activation of complement during liver transplantation special emphasis"
    a = P(t, doi="10.1000/a", **BASE)
    b = P(t, **BASE)  # no identifier: would bridge a and c
    c = P(t, doi="10.1000/c", **BASE)
    res = deduplicate([a, b, c])
    for g in res.groups:
        assert not {0, 2} <= set(g)
    assert sorted(i for g in res.groups for i in g) == [0, 1, 2]


def test_metrics() -> None:
    truth = [[0, 1, 2], [3, 4]]
    perfect = evaluate_groups(6, [[0, 1, 2], [3, 4], [5]], truth)
    assert perfect == Confusion(tp=3, fp=0, fn=0, tn=3)
    over = evaluate_groups(6, [[0, 1, 2, 5], [3], [4]], truth)
    assert (over.tp, over.fp, over.fn) == (2, 1, 1)
    flags = evaluate_flags(5, [[0, 1], [2], [3, 4]], flagged=[0, 1, 2])
    assert (flags.tp, flags.fp, flags.fn, flags.tn) == (2, 2, 1, 0)


def test_a_merge_never_changes_the_features_later_pairs_are_judged_on(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A merge adds the partner's identifiers to its group's set, not to the features of the
    record that stands for the group: the chain check re-judges pairs on those features, and
    a record must be judged on what it holds (a merge once copied only the dict, so the
    group's sets were the record's own)."""
    from litdesk.core.dedup import _match

    seen: dict[int, dict[str, frozenset[str]]] = {}
    real_score = _match._score

    def spy(a, b):  # type: ignore[no-untyped-def]
        for f in (a, b):
            now = {ns: frozenset(v) for ns, v in f.ids.items()}
            assert seen.setdefault(id(f), now) == now, "a record's identifiers changed mid-run"
        return real_score(a, b)

    monkeypatch.setattr(_match, "_score", spy)
    # A and B are one work (B's DOI is a supplement of A's): they merge, and A's features
    # must keep A's one DOI when the chain check then judges A against C (no block shared)
    kw = {"authors": ["Smithson J", "Jones K"], "journal": "Stroke"}
    title = "given intravenous alteplase after acute stroke show haemorrhagic transformation"
    papers = [
        P("Octogenarians " + title, doi="10.1371/journal.pone.0197919", **kw),
        P("Octogenarians " + title + "s", doi="10.1371/journal.pone.0197919.s001", **kw),
        P("Octogenarian " + title + "s", **kw),
    ]
    result = deduplicate(papers)
    assert sorted(len(g) for g in result.groups) == [3]
