"""Issue 30: deduplication never merges different studies. Each class of error as records
written here (not the fixtures' data): serial items of one volume, one group's sibling
conference abstracts, a preprint and its published version; the other vetoes and the
"version of" relation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.dedup import DEDUP_VERSION, Version, deduplicate, explain_pair, registry_ids
from litdesk.core.records import Paper, make_paper


def P(title: str, **kw: object) -> Paper:
    return make_paper(title=title, fallback_key=title + repr(sorted(kw.items())), **kw)  # type: ignore[arg-type]


SERIAL = dict(
    authors=("Straub, D. W.",),
    year=2009,
    journal="MIS Quarterly",
    volume="33",
)


def test_rules_version_is_v4() -> None:
    assert DEDUP_VERSION == "litdesk-dedup-v4"


# --- serial items: same title, author, year, journal, volume; another issue -------------


def test_serial_items_of_different_issues_are_not_merged() -> None:
    first = P("Editor's comments", **SERIAL, issue="1")
    second = P("Editor's comments", **SERIAL, issue="2")
    res = deduplicate([first, second])
    assert res.groups == [[0], [1]]
    (pair,) = res.pairs
    assert pair.decision == "review"
    assert pair.reason.startswith("vetoed: different issues of volume 33 (1 vs 2)")
    assert "(was: rule A" in pair.reason
    assert pair.evidence["vetoes"] == ["different issues of volume 33 (1 vs 2)"]
    assert res.counts["vetoed_pairs"] == 1


def test_serial_item_copies_of_one_issue_still_merge() -> None:
    # the same column exported by two databases (case differs) merges; the other issue's
    # column joins neither (not through the copy without an issue either: no chains)
    a = P("Editor's comments", **SERIAL, issue="1")
    b = P("EDITOR'S COMMENTS", **SERIAL, issue="1")
    c = P("Editor's comments", **SERIAL, issue="2")
    bare = P("Editor's comments", **SERIAL)  # no issue: agrees with both
    res = deduplicate([a, b, c, bare])
    groups = [g for g in res.groups if len(g) > 1]
    assert any({0, 1} <= set(g) for g in groups)
    assert not any({0, 2} <= set(g) or {1, 2} <= set(g) for g in res.groups)


def test_pages_that_do_not_overlap_veto_rule_c() -> None:
    title = "Letter from the editor on the state of the journal in its fortieth year"
    a = P(title, **SERIAL, issue="3", pages="401-402")
    b = P(title, **SERIAL, pages="655-656")
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]
    assert "page ranges do not overlap (401-402 vs 655-656)" in res.pairs[0].reason
    # a range ending before it starts is a typo, not another item: rule C merges
    typo = P(title, **SERIAL, pages="401-302")
    assert deduplicate([a, typo]).groups == [[0, 1]]


def test_different_article_numbers_veto() -> None:
    title = "Correction notices in an open access journal: a survey"
    kw = dict(SERIAL, journal="PLoS ONE", volume="4")
    res = deduplicate([P(title, **kw, pages="e5123"), P(title, **kw, pages="e5124")])
    assert res.groups == [[0], [1]]
    assert "different article numbers (e5123 vs e5124)" in res.pairs[0].reason


def test_issue_typo_under_the_same_first_page_still_merges() -> None:
    title = "Gain-of-function mutations in complement factor B"
    kw = dict(SERIAL, volume="104")
    res = deduplicate(
        [P(title, **kw, issue="1", pages="240-245"), P(title, **kw, issue="25", pages="240")]
    )
    assert res.groups == [[0, 1]]


# --- one group's sibling conference abstracts -------------------------------------------

BACKGROUND = (
    "Atypical haemolytic uraemic syndrome is a rare disease of complement dysregulation. "
    "Eculizumab, a monoclonal antibody against C5, changed its prognosis. "
)
MEETING = dict(
    authors=("Loirat, C.", "Fremeaux-Bacchi, V.", "Dragon-Durey, M. A."),
    year=2011,
    journal="Pediatric Nephrology",
    volume="26",
    issue="9",
)


def test_sibling_abstracts_with_different_titles_are_not_merged() -> None:
    a = P(
        "Complement factor H autoantibodies in children: a national cohort",
        **MEETING,
        pages="1640",
        abstract=BACKGROUND + "We describe 45 children with anti-factor H antibodies.",
    )
    b = P(
        "Eculizumab withdrawal after kidney transplantation in two adolescents",
        **MEETING,
        pages="1640",
        abstract=BACKGROUND + "We report two adolescents who stopped eculizumab.",
    )
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]
    why = explain_pair([a, b], res, 0, 1)
    assert why.decision in ("none", "review") and not why.same_group


def test_sibling_abstracts_whose_titles_differ_in_a_number_are_not_merged() -> None:
    title = "Eculizumab in a murine model of factor H deficiency: {} week outcomes"
    a = P(title.format(12), **MEETING, abstract=BACKGROUND)
    b = P(title.format(24), **MEETING, abstract=BACKGROUND)
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]
    assert "numbers in the titles differ (12 vs 24)" in res.pairs[0].reason


@settings(max_examples=40, deadline=None)
@given(
    abstract=st.text(alphabet="abcdefgh .", min_size=40, max_size=300),
    words=st.lists(
        st.sampled_from(["renal", "cardiac", "hepatic", "ocular", "dermal", "neural"]),
        min_size=2,
        max_size=4,
        unique=True,
    ),
)
def test_abstract_overlap_never_outweighs_a_title_conflict(abstract: str, words: list[str]) -> None:
    # identical abstracts, authors, venue and page; titles with no content word in common
    a = P(
        "Complement blockade outcomes " + " ".join(words), **MEETING, pages="S12", abstract=abstract
    )
    b = P("Plasma exchange registry " + " ".join(reversed(words)) + " cohort", **MEETING, pages="S12",
          abstract=abstract)  # fmt: skip
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]


# --- preprint (working paper) and the published version a year later --------------------


def test_preprint_and_published_version_are_linked_versions_not_merged() -> None:
    title = "Minimum wages and employment in small firms: evidence from a natural experiment"
    authors = ("Card, D.", "Krueger, A. B.")
    wp = P(title, authors=authors, year=2019, journal="NBER Working Paper Series", pages="1-48")
    pub = P(title, authors=authors, year=2020, journal="American Economic Review", volume="110",
            issue="4", pages="1019-1056", doi="10.1257/aer.20180001")  # fmt: skip
    res = deduplicate([wp, pub])
    assert res.groups == [[0], [1]]
    (pair,) = res.pairs
    assert pair.decision == "linked" and pair.evidence["version"] == "preprint"
    assert res.versions == [Version(1, 0, "preprint", pair.reason)]
    assert res.versions[0].to_dict()["primary"] == 1  # the published version is screened


def test_preprint_with_its_own_doi_is_a_version_not_a_conflict() -> None:
    title = "A randomised trial of early mobilisation after stroke"
    kw = dict(authors=("Bernhardt, J.",))
    pre = P(title, **kw, year=2020, journal="medRxiv", doi="10.1101/2020.01.01.123456")
    pub = P(title, **kw, year=2021, journal="Lancet", volume="397", pages="120-130",
            doi="10.1016/s0140-6736(20)32000-1")  # fmt: skip
    res = deduplicate([pub, pre])
    assert res.groups == [[0], [1]]
    assert [(v.primary, v.version, v.relation) for v in res.versions] == [(0, 1, "preprint")]


def test_meeting_abstract_and_full_paper_elsewhere_are_versions() -> None:
    title = "Long-term outcome of eculizumab in atypical haemolytic uraemic syndrome"
    authors = ("Licht, C.", "Greenbaum, L. A.")
    abstract = P(title, authors=authors, year=2012, journal="Blood.Conference: 54th ASH Annual Meeting",
                 volume="120", issue="21 Suppl", pages="3440")  # fmt: skip
    paper = P(title, authors=authors, year=2013, journal="Kidney International", volume="87",
              pages="1061-1073")  # fmt: skip
    res = deduplicate([abstract, paper])
    assert res.groups == [[0], [1]]
    assert [(v.primary, v.version, v.relation) for v in res.versions] == [(1, 0, "abstract")]


# --- other vetoes: registry numbers, DOIs, translated titles -----------------------------


def test_prospero_numbers_are_registry_ids() -> None:
    assert registry_ids("Protocol registered as PROSPERO CRD42019123456.") == {
        "prospero": {"42019123456"}
    }
    title = "Exercise for depression in older adults: a systematic review protocol"
    kw = dict(authors=("Smith, A.",), year=2019, journal="Systematic Reviews", volume="8")
    a = P(title, **kw, abstract="Registration: PROSPERO CRD42019123456.")
    b = P(title, **kw, abstract="Registration: PROSPERO CRD42019654321.")
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]] and res.pairs[0].decision == "distinct"


def test_a_doi_and_its_supplement_component_doi_are_one_work() -> None:
    title = "Serum markers of complement activation in pregnancy"
    kw = dict(authors=("Ahn, S.",), year=2014, journal="PLoS ONE", volume="9", pages="e1234")
    a = P(title, **kw, doi="10.1371/journal.pone.0001234")
    b = P(title, **kw, doi="10.1371/journal.pone.0001234.s001")
    assert deduplicate([a, b]).groups == [[0, 1]]
    c = P(title, **kw, doi="10.1371/journal.pone.0001235")  # another article: never merged
    res = deduplicate([a, c])
    assert res.groups == [[0], [1]] and res.pairs[0].decision == "distinct"


def test_translated_title_is_compared() -> None:
    kw = dict(authors=("Meier, K.",), year=2010, journal="Der Nervenarzt", volume="81",
              pages="1001-1008")  # fmt: skip
    english = P("[Treatment of stroke in old age]", **kw)
    german = P("Behandlung des Schlaganfalls im Alter", **kw)
    assert deduplicate([english, german]).groups == [[0], [1]]
    res = deduplicate([english, german], alt_titles={0: ["Behandlung des Schlaganfalls im Alter."]})
    assert res.groups == [[0, 1]]


@settings(max_examples=60, deadline=None)
@given(
    issues=st.tuples(st.integers(1, 12), st.integers(1, 12)).filter(lambda t: t[0] != t[1]),
    title=st.sampled_from(["Editor's comments", "Letter from the editor", "Society news",
                           "Corrigenda", "In this issue"]),
)  # fmt: skip
def test_different_issues_of_one_volume_never_merge(issues: tuple[int, int], title: str) -> None:
    a = P(title, **SERIAL, issue=str(issues[0]))
    b = P(title, **SERIAL, issue=str(issues[1]))
    res = deduplicate([a, b])
    assert res.groups == [[0], [1]]
    assert all(p.decision != "merge" for p in res.pairs)


def test_sibling_abstracts_sharing_a_supplement_doi_and_differing_in_a_number() -> None:
    # stage 1: a shared supplement DOI is not trusted when the titles differ in a number
    title = "Eculizumab in a murine model of factor H deficiency: {} week outcomes"
    kw = dict(MEETING, doi="10.1007/s00467-011-1938-1")
    res = deduplicate([P(title.format(12), **kw), P(title.format(24), **kw)])
    assert res.groups == [[0], [1]]
    (c,) = res.conflicts
    assert c.kind == "shared" and "numbers in titles" in c.message
    assert c.evidence["pairs"][0]["title_numbers"] == [["12"], ["24"]]
