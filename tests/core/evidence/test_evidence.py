"""Quote verification, anchors, annotations, evidence limits and escaping."""

from __future__ import annotations

import contextlib
import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk._errors import InputError, IntegrityError, RefusedError
from litdesk.core.evidence import (
    FullTextContext,
    check_evidence,
    csv_cell,
    evidence_headline,
    find_occurrences,
    make_anchor,
    make_annotation,
    make_evidence,
    md_blockquote,
    md_escape,
    normalize_ws,
    paper_pmcid,
    passage_in,
    read_annotation,
    read_evidence,
)
from litdesk.core.records import make_paper

NOW = "2026-11-30T12:00:00+00:00"
ABSTRACT = (
    "Background: CRISPR  screens\nidentify genes. Results: Gene X is essential. Gene X again."
)


def _paper(**kw):
    fields = {"pmid": "123", "pmcid": "PMC999", "title": "T", "abstract": ABSTRACT}
    fields.update(kw)
    return make_paper(**fields)


def _ctx(pmcid="PMC999", url=None, text="The drug reduced tumour volume by 40% in mice."):
    return FullTextContext(
        pmcid=pmcid,
        url=url or f"https://europepmc.org/articles/{pmcid}",
        block_id="p-12",
        section="Results",
        text=text,
        licence="CC BY",
        licence_url="https://creativecommons.org/licenses/by/4.0/",
        retrieved_at=NOW,
    )


def test_normalize_ws_collapses_unicode_whitespace():
    assert normalize_ws("  a\u00a0\n\tb   c ") == "a b c"


def test_abstract_passage_verified_after_whitespace_normalisation():
    p = _paper()
    ev = make_evidence(
        p, finding="X", passage="CRISPR screens identify", source="abstract", created_at=NOW
    )
    assert ev.verification == "checked"
    with pytest.raises(RefusedError) as info:
        make_evidence(p, finding="X", passage="Gene Y", source="abstract", created_at=NOW)
    assert info.value.code == "quote_not_found"


def test_headline_is_the_finding_of_a_form_of_ones_own():
    """A Study's own form keeps its finding among the values: the headline (evidence
    list, notebook heading) is that finding, not every value joined in key order."""
    values = {"design": "survey", "finding": "Gene  X\nis essential", "n": 20.0}
    ev = make_evidence(
        _paper(), passage="Gene X is essential", source="abstract", created_at=NOW, values=values
    )
    assert evidence_headline(ev) == "Gene X is essential"
    other = make_evidence(
        _paper(), passage="Gene X is essential", source="abstract", created_at=NOW,
        values={"design": "survey", "n": 20.0},
    )  # fmt: skip
    assert evidence_headline(other) == "survey; 20"


def test_fulltext_passage_needs_matching_pmcid():
    p = _paper()
    ok = make_evidence(
        p,
        finding="F",
        passage="reduced tumour  volume",
        source="fulltext",
        context=_ctx(),
        created_at=NOW,
    )
    assert ok.context is not None and ok.context.pmcid == "PMC999"
    with pytest.raises(RefusedError) as info:
        make_evidence(
            p,
            finding="F",
            passage="reduced",
            source="fulltext",
            context=_ctx("PMC1"),
            created_at=NOW,
        )
    assert info.value.code == "identity_mismatch"
    # a paper with no PMCID: fail closed
    with pytest.raises(RefusedError) as info:
        make_evidence(
            make_paper(doi="10.1234/x", abstract="a"),
            finding="F",
            passage="reduced",
            source="fulltext",
            context=_ctx(),
            created_at=NOW,
        )
    assert info.value.code == "identity_unknown"


def test_pmc_primary_id_counts_as_pmcid():
    p = make_paper(id="PMC-PMC999", abstract="x")
    assert paper_pmcid(p) == "PMC999"
    make_evidence(p, finding="F", passage="40%", source="fulltext", context=_ctx(), created_at=NOW)


@pytest.mark.parametrize(
    "url",
    [
        "http://europepmc.org/articles/PMC999",
        "https://europepmc.org/articles/PMC998",
        "https://evil.example/articles/PMC999",
        "https://europepmc.org/articles/PMC999?x=1",
        "https://europepmc.org.evil.example/articles/PMC999",
    ],
)
def test_forged_source_url_refused(url):
    with pytest.raises(ValueError, match="full-text source URL"):
        _ctx(url=url)


def test_external_needs_location_and_is_labelled():
    p = _paper()
    with pytest.raises(InputError):
        make_evidence(p, finding="F", passage="anything", source="external", created_at=NOW)
    ev = make_evidence(
        p,
        finding="F",
        passage="anything",
        source="external",
        location="p. 4, Fig. 2",
        created_at=NOW,
    )
    assert ev.verification == "needs_verification"
    with pytest.raises(InputError):
        make_evidence(
            p, finding="F", passage="x", source="external", location="L" * 501, created_at=NOW
        )


def test_field_limits():
    p = _paper()
    with pytest.raises(InputError):
        make_evidence(p, finding="", passage="Gene X", source="abstract", created_at=NOW)
    with pytest.raises(InputError):
        make_evidence(p, finding="F" * 4001, passage="Gene X", source="abstract", created_at=NOW)
    with pytest.raises(InputError):
        make_evidence(
            p, finding="F", passage="Gene X", source="abstract", method="m" * 4001, created_at=NOW
        )
    with pytest.raises(InputError):
        make_evidence(
            p, finding="F", passage="p" * 8001, source="external", location="x", created_at=NOW
        )
    with pytest.raises(InputError):
        make_evidence(
            p, finding="F", passage="Gene X", source="abstract", colour="x", created_at=NOW
        )
    ev = make_evidence(
        p,
        finding="F",
        passage="Gene X",
        source="abstract",
        question="Q",
        population="mice",
        method="screen",
        intervention="10 uM",
        limitations="small n",
        created_at=NOW,
    )
    assert read_evidence(ev.model_dump(mode="json")) == ev


def test_anchor_offsets_must_reproduce_quote():
    p = _paper()
    a = make_anchor(p, text="Gene X", occurrence=2)
    assert ABSTRACT[a.start : a.end] == "Gene X"
    assert a.start == find_occurrences(ABSTRACT, "Gene X")[1]
    with pytest.raises(RefusedError) as info:
        make_anchor(p, text="Gene X", start=0)
    assert info.value.code == "anchor_mismatch"
    with pytest.raises(InputError):
        make_anchor(p, text="Gene X", occurrence=3)
    with pytest.raises(InputError):
        make_anchor(_paper(abstract="a" * 9000), text="a" * 8001, start=0)


def test_stored_anchor_with_wrong_offsets_refused_on_read():
    p = _paper()
    note = make_annotation(p, comment="nice", anchor=make_anchor(p, text="Gene X"), created_at=NOW)
    data = note.model_dump(mode="json")
    data["anchor"]["start"] += 1
    data["anchor"]["end"] += 1
    # still self-consistent in length, but the abstract no longer reproduces it
    stored = read_annotation(data)
    with pytest.raises(RefusedError):
        make_annotation(p, comment="x", anchor=stored.anchor, created_at=NOW)


def test_fulltext_anchor_checks_paragraph_and_identity():
    p = _paper()
    a = make_anchor(p, text="tumour volume", context=_ctx())
    assert a.block_id == "p-12" and a.section == "Results"
    data = a.model_dump(mode="json")
    data["text"] = "tumour VOLUME"
    with pytest.raises(ValueError, match="reproduce"):
        type(a).model_validate(data)
    with pytest.raises(RefusedError):
        make_anchor(p, text="tumour", context=_ctx("PMC5"))


def test_paper_level_comment_needs_no_anchor_but_needs_text():
    p = _paper()
    assert make_annotation(p, comment="read later", anchor=None, created_at=NOW).kind == "comment"
    with pytest.raises(InputError):
        make_annotation(p, comment="  ", anchor=None, created_at=NOW)
    with pytest.raises(InputError):
        make_annotation(p, comment="c" * 4001, anchor=None, created_at=NOW)


def test_read_refuses_unknown_versions_and_garbage():
    with pytest.raises(IntegrityError):
        read_evidence({"version": 2})
    with pytest.raises(IntegrityError):
        read_evidence([1, 2])
    with pytest.raises(IntegrityError):
        read_annotation({"version": 1, "paper_id": "MED-1"})


def test_check_evidence_rechecks_against_changed_abstract():
    p = _paper()
    ev = make_evidence(
        p, finding="F", passage="Gene X is essential", source="abstract", created_at=NOW
    )
    with pytest.raises(RefusedError):
        check_evidence(ev, _paper(abstract="A different abstract."))


def test_csv_cell_known_cases():
    assert csv_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert csv_cell("+1") == "'+1"
    assert csv_cell("-2") == "'-2"
    assert csv_cell("@SUM") == "'@SUM"
    assert csv_cell("\tx") == "'\tx"
    assert csv_cell("\rx") == "'\rx"
    assert csv_cell("plain") == "plain"
    assert csv_cell(None) == ""


@settings(max_examples=200)
@given(st.text())
def test_csv_cell_never_starts_a_formula_and_round_trips(value):
    cell = csv_cell(value)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    buf = io.StringIO()
    csv.writer(buf).writerow([cell, "next"])
    row = next(csv.reader(io.StringIO(buf.getvalue(), newline="")))
    assert row == [cell, "next"]


@settings(max_examples=200)
@given(st.text(), st.text())
def test_normalisation_properties(prefix, passage):
    norm = normalize_ws(passage)
    assert normalize_ws(norm) == norm
    assert "  " not in norm and norm == norm.strip()
    source = prefix + " " + passage.replace(" ", "\n  ") + " tail"
    if norm:
        assert passage_in(passage, source)


@pytest.mark.parametrize(
    ("passage", "source", "found"),
    [
        ("informa\u00e7\u00e3o p\u00fablica", "a informac\u0327a\u0303o pu\u0301blica local", True),
        ("informac\u0327a\u0303o pu\u0301blica", "a informa\u00e7\u00e3o p\u00fablica local", True),
        ("informacao publica", "a informa\u00e7\u00e3o p\u00fablica local", False),
        ("P > 0.05", "changed with P < 0.05", False),
    ],
)
def test_passage_in_same_text_in_another_unicode_form(passage, source, found):
    """A quote pasted decomposed (NFD, as macOS pastes) is the abstract's text; an
    accent-less or otherwise different quote is not."""
    assert passage_in(passage, source) is found


@settings(max_examples=100)
@given(st.text())
def test_markdown_escaping_is_inert(text):
    out = md_escape(text)
    assert "\n" not in out
    for ch in "*_`[]<>#|":
        assert out.count(ch) == out.count("\\" + ch) or ch not in text
    quoted = md_blockquote(text)
    assert all(line.startswith(">") for line in quoted.split("\n"))


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "version",
                "paper_id",
                "finding",
                "passage",
                "source",
                "anchor",
                "comment",
                "created_at",
                "verification",
                "context",
                "location",
            ]
        ),
        _json_values,
        max_size=11,
    )
)
def test_readers_only_raise_integrity_errors(data):
    for reader in (read_evidence, read_annotation):
        with contextlib.suppress(IntegrityError):
            reader(data)
