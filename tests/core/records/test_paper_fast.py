"""make_paper's fast construction path against pydantic's validation (differential tests).

The fast path (``_paper._fast_paper``) must build exactly the Paper that ``Paper(**fields)``
builds, and hand every input pydantic would refuse (or that it does not handle itself)
back to pydantic by raising ``_Slow`` — so make_paper raises the same PaperError.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from litdesk.core.records import (
    AbstractSource,
    Paper,
    PaperError,
    _paper,
    make_paper,
    normalize_doi,
    primary_id,
    read_paper,
)
from litdesk.core.records._identifiers import _normalize_doi, plain_doi

FIELDS = [name for name in Paper.model_fields if name != "id"]

# whitespace pydantic-core strips and Python strips differently, control characters,
# line breaks, non-breaking and zero-width spaces, non-ASCII letters
SPECIAL = (
    "\x00\x07\x0b\x0c\x1c\x1f\x7f\t\n\r \x85\xa0\u1680\u2003\u2028\u202f\u3000\u200b\u180eé-/.:"
)
SAMPLES = [
    "",
    "   ",
    "10.1000/abc",
    " doi:10.1000/ABC. ",
    "https://doi.org/10.1000/x%20y",
    "10.1/x",
    "PMID: 42",
    "0042",
    "42",
    "PMC123",
    "pmc-12",
    "W123",
    "https://openalex.org/W42",
    "arXiv:2101.00001v2",
    "2101.00001",
    "hep-th/9901001",
    "MED-1",
    "MED-PMID:7",
    "PMC-PMC9",
    "PPR-123",
    "DOI-ABC123",
    "REC-ABC",
    "XYZ-1",
    "https://example.org/a",
    "https://user:pw@example.org/a",
    "https://example.org/a b",
    "https://example.org:99999/",
    "http://example.org/a",
    "2020-01-01T00:00:00Z",
    "2020-13-01",
    "not a date",
    "Smith, J",
    "\x1c\u3000Title\x1f ",
]
LIMITS = [99, 100, 101, 1999, 2000, 2001, 3999, 4000, 4001]


def _long(parts: tuple[str, str, int]) -> str:
    pad, ch, n = parts
    return pad + ch * n + pad


strings = st.one_of(
    st.text(alphabet=st.sampled_from(list(SPECIAL) + list("abcXYZ019")), max_size=20),
    st.sampled_from(SAMPLES),
    st.tuples(
        st.sampled_from(["", " ", "\x1c", "\u3000", "\x00"]),
        st.sampled_from(["a", "\x07", " "]),
        st.sampled_from(LIMITS),
    ).map(_long),
)
scalars = st.one_of(
    st.none(),
    strings,
    st.booleans(),
    st.sampled_from([-1, 0, 1, 2, 999, 1000, 1999, 2999, 3000, 10**6]),
    st.floats(allow_nan=False, max_value=3000, min_value=-1),
)
seqs = st.one_of(st.lists(strings, max_size=5), st.lists(scalars, max_size=3)).flatmap(
    lambda xs: st.sampled_from([xs, tuple(xs)])
)
values = st.one_of(scalars, seqs)
GOOD_IDS = ["MED-1", "MED-PMID:7", " med-0042 ", "PMC-PMC9", "PPR-123", "ppr-x1", "REC-ABC"]
GOOD_IDS += ["OAX-W42", "ARX-2101.00001", "DOI-ABC123"]
ids = st.one_of(st.sampled_from(SAMPLES), strings, st.none(), st.integers(0, 9))


opt = st.none().map(lambda _: None)
# short lists and long ones (over 12 items take another code path)
names = st.one_of(
    st.lists(strings, max_size=5), st.lists(strings, min_size=13, max_size=20)
).flatmap(lambda xs: st.sampled_from([xs, tuple(xs)]))
short = st.one_of(opt, st.text(max_size=8), st.sampled_from(SAMPLES))
idents = st.one_of(opt, st.just(""), st.sampled_from(SAMPLES))
when = st.one_of(opt, st.sampled_from(SAMPLES[-5:-1]), st.datetimes().map(str))
# values of the right type for each field (many still invalid: bad identifiers, limits, ranges)
PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "version": st.just(1),
    "title": strings,
    "authors": names,
    "journal": st.one_of(opt, strings),
    "year": st.one_of(opt, st.integers(990, 3010)),
    "volume": short,
    "issue": short,
    "pages": st.one_of(short, strings),
    "doi": idents,
    "pmid": idents,
    "pmcid": idents,
    "openalex_id": idents,
    "arxiv_id": idents,
    "arxiv_version": st.one_of(opt, st.integers(0, 1000)),
    "abstract": st.one_of(opt, strings),
    "keywords": names,
    "publication_types": names,
    "open_access": st.one_of(opt, st.booleans()),
    "retracted": st.booleans(),
    "cited_by": st.one_of(opt, st.integers(-2, 10**9)),
    "source_url": st.one_of(opt, strings),
    "full_text_url": st.one_of(opt, st.sampled_from(SAMPLES)),
    "licence": st.one_of(opt, strings),
    "retrieved_at": when,
    "provider": st.one_of(opt, strings),
    "abstract_source": st.one_of(
        opt,
        st.builds(
            AbstractSource,
            provider=st.sampled_from(["europepmc", "x"]),
            source_url=st.sampled_from([None, "https://a.org/", "http://a.org/"]),
        ),
    ),
}
assert set(PLAUSIBLE) == set(FIELDS)


# the strategies field_dicts draws from, made once (a strategy made inside the composite is
# made, validated and measured again on every draw); what is drawn is the same
_TEN, _FIVE, _SIX, _THIRTY = (
    st.integers(0, 9),
    st.integers(0, 4),
    st.integers(0, 5),
    st.integers(0, 29),
)
_GOOD_ID = st.sampled_from(GOOD_IDS)
_NAMES = st.lists(st.sampled_from(FIELDS), unique=True, max_size=10)


@st.composite
def field_dicts(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if draw(_TEN):  # now and then no id at all
        out["id"] = draw(ids) if draw(_FIVE) == 0 else draw(_GOOD_ID)
    for name in draw(_NAMES):
        # mostly the right type, now and then anything at all
        out[name] = draw(values) if draw(_SIX) == 0 else draw(PLAUSIBLE[name])
    if draw(_THIRTY) == 7:
        out["unexpected"] = draw(values)
    return out


def _pydantic(fields: dict[str, Any]) -> Paper | None:
    try:
        return Paper(**fields)
    except ValidationError:
        return None


def _same(a: Paper, b: Paper) -> None:
    assert a == b
    assert a.model_fields_set == b.model_fields_set
    assert repr(a) == repr(b)
    assert a.model_dump_json() == b.model_dump_json()
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())
    assert hash(a) == hash(b)
    for name in Paper.model_fields:
        assert type(getattr(a, name)) is type(getattr(b, name)), name


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field_dicts())
def test_fast_path_builds_what_pydantic_builds_or_defers(fields: dict[str, Any]) -> None:
    expected = _pydantic(dict(fields))
    try:
        fast = _paper._fast_paper(dict(fields))
    except _paper._Slow:
        fast = None
    if fast is not None:
        assert expected is not None, "fast path accepted what pydantic refuses"
        _same(fast, expected)
    elif expected is not None:
        # only plain types are handled by the fast path (a bool where an int or a literal 1
        # stands is left to pydantic); a plain input it defers is a miss
        assert any(type(v) in (float, bool) for v in fields.values()) or any(
            type(x) not in (str,) for v in fields.values() if isinstance(v, list | tuple) for x in v
        ), f"fast path deferred a valid plain input: {fields!r}"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field_dicts())
def test_make_paper_equals_pydantic_or_raises_the_same_error(fields: dict[str, Any]) -> None:
    if not fields.get("id"):
        fields["id"] = "REC-ABC"  # make_paper derives a missing id; compare like with like
    try:
        expected: Paper | PaperError = Paper(**dict(fields))
    except ValidationError as exc:
        expected = PaperError(_paper._summarise(exc), errors=_paper._errors(exc))
    try:
        got: Paper | PaperError = make_paper(**dict(fields))
    except PaperError as exc:
        got = exc
    if isinstance(expected, Paper):
        assert isinstance(got, Paper)
        _same(got, expected)
    else:
        assert isinstance(got, PaperError)
        assert type(got) is PaperError  # the internal fallback signal never escapes
        assert got.message == expected.message
        assert got.details == expected.details


@settings(max_examples=100, deadline=None)
@given(
    st.lists(strings, max_size=6),
    st.sampled_from(SAMPLES[2:16]),
    st.sampled_from([None, 1000, 2024, 2999]),
)
def test_valid_plain_records_take_the_fast_path(
    authors: list[str], ident: str, year: int | None
) -> None:
    fields: dict[str, Any] = {
        "id": "REC-ABC",
        "title": "A title",
        "authors": [a for a in authors if len(a.strip(_paper._TRIM)) <= 2000],
        "year": year,
        "keywords": ("a", " b "),
    }
    fast = _paper._fast_paper(dict(fields))  # raises _Slow (fails the test) if it deferred
    _same(fast, Paper(**fields))


def test_whitespace_is_stripped_the_way_pydantic_strips_it() -> None:
    # \x1c-\x1f are whitespace to Python's str.strip but not to pydantic (Rust's trim)
    journal = "\x1c\u3000The Lancet\xa0\x1f"
    assert (
        make_paper(title="t", journal=journal, fallback_key="k").journal
        == Paper(id="REC-A", journal=journal).journal
    )
    assert make_paper(
        title="t", journal=journal, fallback_key="k"
    ).journal == "\x1c\u3000The Lancet\xa0\x1f".strip(_paper._TRIM)


def test_length_limits_count_after_stripping() -> None:
    ok = make_paper(title="t", volume="  " + "9" * 100 + "\u3000", fallback_key="k")
    assert ok.volume == "9" * 100
    with pytest.raises(PaperError) as err:
        make_paper(title="t", volume="9" * 101, fallback_key="k")
    assert "volume" in err.value.message


def test_other_types_are_left_to_pydantic() -> None:
    source = {"provider": "europepmc", "source_url": "http://x.org"}
    p = make_paper(title="t", abstract_source=source, keywords={"only"}, fallback_key="k")
    assert p.abstract_source == AbstractSource(provider="europepmc")
    assert p.keywords == ("only",)
    with pytest.raises(_paper._Slow):
        _paper._fast_paper({"id": "REC-A", "keywords": {"only"}})
    with pytest.raises(PaperError):
        make_paper(title="t", year=True, fallback_key="k")
    with pytest.raises(PaperError):
        make_paper(title="t", authors="Smith", fallback_key="k")


def test_every_field_has_a_fast_check() -> None:
    assert set(_paper._FAST) == set(Paper.model_fields)


def test_long_name_lists_match_pydantic() -> None:
    authors = [f" Author {i}\x1c " for i in range(5_010)] + ["", "\x00", "x" * 2000]
    fields = {"id": "REC-A", "authors": authors, "keywords": ["k"] * 30}
    _same(_paper._fast_paper(dict(fields)), Paper(**fields))
    assert len(make_paper(**fields).authors) == 5_000
    with pytest.raises(PaperError):
        make_paper(id="REC-A", authors=["a"] * 20 + ["x" * 2001])
    with pytest.raises(PaperError):
        make_paper(id="REC-A", authors=["a"] * 20 + [None])


# --- make_paper deriving the id, plain DOIs, shared fields sets --------------------------

DOI_CHARS = [chr(c) for c in range(0x21, 0x7F)] + [" ", "\t", "%", "é", "\u3000", "."]


_DIGITS = st.text(alphabet="0123456789", min_size=0, max_size=11)
_SUFFIX = st.text(alphabet=st.sampled_from(DOI_CHARS), max_size=12)
_LONG = st.sampled_from([0, 0, 0, 495, 496, 497, 498, 499, 500, 501])
_PREFIX = st.sampled_from(["10.", "10.", "10,", "doi:10.", "11."])


@st.composite
def doi_like(draw: st.DrawFn) -> str:
    digits = draw(_DIGITS)
    suffix = draw(_SUFFIX)
    long = draw(_LONG)
    return draw(_PREFIX) + digits + "/" + ("a" * long) + suffix


@settings(max_examples=500, deadline=None)
@given(doi_like())
def test_plain_dois_are_what_normalize_doi_lower_cases(text: str) -> None:
    if plain_doi(text):
        assert normalize_doi(text) == text.lower()
        assert _normalize_doi(text) == text.lower()  # the general path agrees


def test_plain_doi_examples() -> None:
    assert plain_doi("10.1016/S0140-6736(20)30183-5")
    assert plain_doi("10.1234/" + "a" * 504)  # 512 characters
    assert not plain_doi("10.1234/" + "a" * 505)
    for text in (
        "10.1000/a.",
        "10.1000/a;",
        "10.1000/a b",
        "10.1000/a%2F",
        "10.100/a",
        "doi:10.1000/a",
    ):
        assert not plain_doi(text), text


ID_FIELDS = ["pmid", "pmcid", "openalex_id", "arxiv_id", "doi"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    field_dicts(),
    st.one_of(st.none(), st.sampled_from(SAMPLES), st.just("PPR-12")),
    st.one_of(st.none(), st.just(""), st.sampled_from(["sha256:abc", "sha256:def"])),
)
def test_a_derived_id_is_primary_id_of_the_raw_identifiers(
    fields: dict[str, Any], source_id: str | None, fallback: str | None
) -> None:
    fields.pop("id", None)
    expected_id = primary_id(
        **{name: fields.get(name) for name in ID_FIELDS}, source_id=source_id, fallback=fallback
    )
    try:
        if expected_id is None:  # no identifier, no fallback key: refused
            expected: Paper | PaperError = _paper._unkeyed(dict(fields))
        else:
            expected = Paper(**dict(fields, id=expected_id))
    except ValidationError as exc:
        expected = PaperError(_paper._summarise(exc), errors=_paper._errors(exc))
    except TypeError:  # primary_id refused a non-str identifier: only pydantic's path
        return
    try:
        got: Paper | PaperError = make_paper(
            source_id=source_id, fallback_key=fallback, **dict(fields)
        )
    except PaperError as exc:
        got = exc
    if isinstance(expected, Paper):
        assert isinstance(got, Paper), got
        _same(got, expected)
    else:
        assert isinstance(got, PaperError) and got.message == expected.message


def test_a_derived_id_takes_the_fast_path() -> None:
    fields = {"title": "t", "doi": "10.1000/ABC", "authors": ["A, B"]}
    fast = _paper._fast_paper(dict(fields), derive_id=True, fallback="sha256:x")
    assert fast.id == primary_id(doi="10.1000/ABC") and fast.doi == "10.1000/abc"
    assert fast.model_fields_set == {"title", "doi", "authors", "id"}
    assert make_paper(id="", **fields) == fast  # an empty id is derived too


def test_papers_of_one_shape_share_their_fields_set_and_copies_do_not() -> None:
    a = make_paper(title="a", doi="10.1000/a")
    b = make_paper(title="b", doi="10.1000/b")
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    c = a.model_copy(update={"journal": "J"})
    assert "journal" in c.model_fields_set and "journal" not in b.model_fields_set
    assert a.model_fields_set == {"title", "doi", "id"}


@settings(max_examples=400, deadline=None)
@given(
    st.fixed_dictionaries(
        {name: st.one_of(st.none(), st.just(""), st.sampled_from(SAMPLES)) for name in ID_FIELDS}
    ),
    st.one_of(st.none(), st.sampled_from(["PPR-12", "ppr-x1", "MED-5", "XYZ-1", "nope"])),
)
def test_each_identifier_rank_derives_the_primary_id(
    idents: dict[str, str | None], source_id: str | None
) -> None:
    fields = {"title": "t", **{k: v for k, v in idents.items() if v is not None}}
    expected_id = primary_id(**idents, source_id=source_id, fallback="sha256:f")
    try:
        expected = Paper(**dict(fields, id=expected_id))
    except ValidationError:
        with pytest.raises(PaperError):
            make_paper(source_id=source_id, fallback_key="sha256:f", **fields)
        return
    got = make_paper(source_id=source_id, fallback_key="sha256:f", **fields)
    _same(got, expected)


# --- read_paper: stored data takes the same fast path -----------------------------------

source_dicts = st.fixed_dictionaries(
    {"provider": st.sampled_from(["europepmc", " x ", "", 7])},
    optional={
        "source_url": st.sampled_from([None, "https://a.org/", "http://a.org/", 3]),
        "retrieved_at": st.sampled_from([None, "2020-01-01", 5]),
        "other": st.just("x"),
    },
)


def _validated(data: dict[str, Any]) -> Paper | PaperError:
    """What read_paper returned before it had a fast path: pydantic's answer."""
    try:
        return Paper.model_validate(data)
    except ValidationError as exc:
        return PaperError(_paper._summarise(exc), errors=_paper._errors(exc))


def _read(data: dict[str, Any]) -> Paper | PaperError:
    try:
        return read_paper(data)
    except PaperError as exc:
        return exc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field_dicts(), st.one_of(st.none(), source_dicts))
def test_read_paper_equals_pydantic_or_raises_the_same_error(
    fields: dict[str, Any], source: dict[str, Any] | None
) -> None:
    if source is not None:
        fields["abstract_source"] = source
    fields.pop("version", None)
    expected, got = _validated(dict(fields)), _read(fields)
    if isinstance(expected, Paper):
        assert isinstance(got, Paper)
        _same(got, expected)
    else:
        assert type(got) is PaperError  # the internal fallback signal never escapes
        assert (got.message, got.details) == (expected.message, expected.details)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field_dicts(), st.one_of(st.none(), source_dicts))
def test_a_stored_paper_reads_back_as_itself_on_the_fast_path(
    fields: dict[str, Any], source: dict[str, Any] | None
) -> None:
    fields["id"] = fields.get("id") or "REC-ABC"
    if source is not None:
        fields["abstract_source"] = source
    try:
        paper = Paper(**fields)
    except ValidationError:
        return
    stored = json.loads(json.dumps(paper.to_dict()))  # as the store keeps it
    _same(_paper._fast_paper(stored), Paper.model_validate(stored))  # no _Slow: it is plain
    back = read_paper(stored)
    assert back == paper and back.to_dict() == paper.to_dict()


def test_read_paper_checks_a_stored_abstract_source_like_pydantic() -> None:
    base = {"id": "REC-A", "title": "t"}
    ok = read_paper(base | {"abstract_source": {"provider": "x", "source_url": "http://a.org"}})
    assert ok.abstract_source == AbstractSource(provider="x")  # unsafe URL dropped
    with pytest.raises(PaperError) as err:
        read_paper(base | {"abstract_source": {"provider": ""}})
    assert err.value.message.startswith("invalid paper: abstract_source.provider")
    with pytest.raises(PaperError, match="abstract_source.extra"):
        read_paper(base | {"abstract_source": {"provider": "x", "extra": 1}})
