"""Issue 12: shared identifiers of imported records are evidence, not proof; no chains."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.dedup import deduplicate
from litdesk.core.fusion import Conflict, group_identities
from litdesk.core.records import Paper, make_paper


def P(title: str, **kw: object) -> Paper:
    return make_paper(title=title, fallback_key=title + repr(sorted(kw.items())), **kw)  # type: ignore[arg-type]


SUPPLEMENT = "10.1111/ijs.12479"
ABSTRACTS = [
    ("Thrombolysis in wake-up stroke: a registry", "Novak, J.", "S12"),
    ("Mobile stroke units in rural Norway", "Berge, E.", "S13"),
    ("Aphasia therapy intensity after stroke", "Brady, M.", "S14"),
    ("Endovascular thrombectomy beyond 24 hours", "Nogueira, R.", "S15"),
]


def supplement(copies: int = 1) -> list[Paper]:
    out = []
    for k in range(copies):
        for title, author, page in ABSTRACTS:
            out.append(
                P(
                    title + ("." if k else ""),
                    doi=SUPPLEMENT,
                    authors=(author,),
                    journal="International Journal of Stroke",
                    volume="10",
                    issue="S2",
                    pages=page,
                    year=2015,
                )
            )
    return out


def test_supplement_doi_is_a_conflict_not_a_merge() -> None:
    res = deduplicate(supplement())
    assert res.groups == [[0], [1], [2], [3]]
    assert res.counts["stage1_merged"] == 0
    (c,) = res.conflicts
    assert isinstance(c, Conflict) and c.kind == "shared" and c.namespace == "doi"
    assert c.values == (SUPPLEMENT,) and c.members == (0, 1, 2, 3)
    assert c.message.startswith("DOI shared by 4 records with different")
    assert "likely a supplement or issue DOI" in c.message
    assert "titles" in c.evidence["disagree"] and c.evidence["disagreeing_pairs"] == 6
    assert c.to_dict()["kind"] == "shared"


def test_supplement_copies_still_merge_by_their_own_fields() -> None:
    # each abstract exported by two databases, all eight under the supplement's DOI
    res = deduplicate(supplement(copies=2))
    assert res.groups == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert all(p.stage == 2 for p in res.pairs if p.decision == "merge")
    assert res.counts["shared_id_conflicts"] == 1


def test_book_doi_on_chapters() -> None:
    book = dict(doi="10.1007/978-3-030-12345-6", year=2020, journal="Stroke Rehabilitation",
                publication_types=("Book Chapter",))  # fmt: skip
    ch1 = P("Motor learning principles", authors=("Krakauer, J.",), pages="1-20", **book)
    ch2 = P("Motor learning principles", authors=("Krakauer, J.",), pages="1-20", **book)
    ch3 = P("Constraint-induced movement therapy", authors=("Taub, E.",), pages="21-40", **book)
    res = deduplicate([ch1, ch2, ch3])
    assert res.groups == [[0, 1], [2]]
    (c,) = res.conflicts
    assert "likely a book's DOI given to its chapters" in c.message
    assert {"titles", "pages", "authors"} <= set(c.evidence["disagree"])


def test_pages_alone_differing_under_the_same_title_is_one_article() -> None:
    # online-first pages "1-7" and print pages "765-771" of the same article
    kw = dict(doi="10.1017/ice.2017.52", authors=("Souli, M.",), year=2017)
    a = P("Reduction of environmental contamination by copper-alloy coating", pages="1-7", **kw)
    b = P("Reduction of environmental contamination by copper-alloy coating", pages="765-771",
          **kw)  # fmt: skip
    res = deduplicate([a, b])
    assert res.groups == [[0, 1]] and res.conflicts == []


def test_shared_pmid_with_different_pages_and_authors() -> None:
    a = P("Stroke unit care", pmid="123", pages="10-12", authors=("Langhorne, P.",))
    b = P("Stroke unit care outcomes", pmid="123", pages="40-44", authors=("Smith, K.",))
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]
    (c,) = res.conflicts
    assert c.namespace == "pmid" and c.message.startswith("PMID shared by 2 records")


def test_search_identity_graph_keeps_the_identifier_rule() -> None:
    # provider search results: an identifier link is kept (the reference's rule)
    a = P("A title about renal outcomes", doi="10.1000/x")
    b = P("Completely different title text", doi="10.1000/x")
    (g,) = group_identities([a, b])
    assert g.members == (0, 1) and g.conflicts == () and g.details == ()


def test_identity_graph_conflicts_have_the_shared_shape() -> None:
    a = P("Same", doi="10.1000/a", pmid="1")
    b = P("Same", doi="10.1000/b", pmid="1")
    groups = group_identities([a, b])
    assert [g.members for g in groups] == [(0,), (1,)]
    for g in groups:
        (d,) = g.details
        assert isinstance(d, Conflict) and d.kind == "values" and d.namespace == "doi"
        assert d.values == ("10.1000/a", "10.1000/b") and d.members == (0, 1)
        assert g.conflicts == (d.message,)


CHAIN = dict(journal="Stroke", year=2012, volume="43", authors=("Kim, D.",))


def test_no_chaining_through_a_middle_record() -> None:
    # A ≈ B (subtitle dropped, same fingerprint) and B ≈ C, but A and C share nothing
    a = P("Robot-assisted arm training after stroke", pages="100-108", **CHAIN)
    b = P("Robot-assisted arm training after stroke: a randomized trial", pages="100-108",
          **CHAIN)  # fmt: skip
    c = P("Robot-assisted arm training after stroke: a randomized trial",
          **CHAIN | {"volume": None})  # fmt: skip
    # sanity: each pair on its own
    assert deduplicate([a, b]).groups == [[0, 1]]
    assert deduplicate([b, c]).groups == [[0, 1]]
    assert deduplicate([a, c]).groups == [[0], [1]]
    res = deduplicate([a, b, c])
    assert len(res.groups) == 2
    (chained,) = [p for p in res.pairs if "chain" in p.evidence]
    assert chained.decision == "review" and res.counts["chain_reviews"] == 1
    assert sorted(chained.evidence["chain"]) == [0, 2]


@settings(max_examples=40, deadline=None)
@given(st.permutations(list(range(6))))
def test_every_pair_of_an_automatic_group_is_plausible(order: list[int]) -> None:
    base = [
        P("Robot-assisted arm training after stroke", pages="100-108", **CHAIN),
        P("Robot-assisted arm training after stroke: a randomized trial", pages="100-108",
          **CHAIN),
        P("Robot-assisted arm training after stroke: a randomized trial",
          **CHAIN | {"volume": None}),
        P("Robot assisted arm training after stroke", pages="100-8", **CHAIN),
        P("Mirror therapy after stroke", pages="5-9", **CHAIN),
        P("Mirror therapy after stroke.", pages="5-9", **CHAIN),
    ]  # fmt: skip
    papers = [base[i] for i in order]
    res = deduplicate(papers)
    assert sorted(i for g in res.groups for i in g) == list(range(6))
    for g in res.groups:
        for i in g:
            for j in g:
                if i < j:
                    alone = deduplicate([papers[i], papers[j]])
                    decided = [p.decision for p in alone.pairs]
                    assert decided and decided[0] in ("merge", "review"), (i, j, decided)


_TITLES = st.sampled_from(
    ["Stroke unit care", "Stroke unit care outcomes", "Mirror therapy after stroke",
     "Mirror therapy after stroke: a trial", "", "Aphasia"]
)  # fmt: skip
_PAGES = st.sampled_from(["", "S12", "S45", "12", "12-20", "15-18", "e1234", "1-7", "765-771"])
_AUTHORS = st.sampled_from([(), ("Kim, D.",), ("Lee, K.", "Kim, D."), ("Smith, J.",)])


@settings(max_examples=150, deadline=None)
@given(_TITLES, _PAGES, _AUTHORS, _TITLES, _PAGES, _AUTHORS)
def test_shared_identifier_disagreement_is_symmetric(
    t1: str, p1: str, a1: tuple[str, ...], t2: str, p2: str, a2: tuple[str, ...]
) -> None:
    from litdesk.core.dedup._shared import _brief, disagreement

    x = P(t1 or "x", pages=p1 or None, authors=a1)
    y = P(t2 or "x", pages=p2 or None, authors=a2)
    one, two = disagreement(_brief(x), _brief(y)), disagreement(_brief(y), _brief(x))
    assert (one is None) == (two is None)
    if one is not None and two is not None:
        assert one.keys() == two.keys()
    # the same record never disagrees with itself
    assert disagreement(_brief(x), _brief(x)) is None
    # and what disagrees is never merged on the shared DOI
    res = deduplicate([x.model_copy(update={"doi": "10.1000/s"}),
                       y.model_copy(update={"doi": "10.1000/s"})])  # fmt: skip
    if one is not None:
        assert res.counts["stage1_merged"] == 0 and res.conflicts[0].kind == "shared"
    else:
        assert res.groups == [[0, 1]]


def test_conflicting_values_are_reported_once() -> None:
    a = P("Same title of a paper", doi="10.1000/a", pmid="1")
    b = P("Same title of a paper", doi="10.1000/b", pmid="1")
    res = deduplicate([a, b])
    assert [c.kind for c in res.conflicts] == ["values"]
    assert res.conflicts[0].members == (0, 1)
