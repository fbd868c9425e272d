"""Extraction forms (pure): fields and their rules, values checked against a form (each
error names its field), the JSON round trip, ready templates and kept values."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.evidence import EVIDENCE_FIELDS
from litdesk.core.forms import (
    FIELD_TYPES,
    RESERVED_KEYS,
    TEMPLATES,
    Form,
    FormField,
    FormInvalid,
    ValueInvalid,
    check_values,
    default_form,
    form_from_json,
    form_to_json,
    pico_form,
    read_form,
    rob2_form,
    shown_values,
    template,
    value_text,
)


def test_default_template_is_the_six_evidence_fields():
    form = default_form()
    assert [(f.key, f.label) for f in form.fields] == list(EVIDENCE_FIELDS)
    assert [f.key for f in form.fields if f.required] == ["finding"]
    assert all(f.type == "text" and f.max_length == 4_000 for f in form.fields)


def test_pico_and_rob2_templates():
    pico = pico_form()
    assert pico.keys == (
        "population",
        "intervention",
        "comparator",
        "outcome",
        "study_design",
        "sample_size",
        "effect_measure",
        "effect_value",
        "ci_lower",
        "ci_upper",
    )
    assert pico.field("sample_size").type == "number"  # type: ignore[union-attr]
    assert "Odds ratio" in pico.field("effect_measure").options  # type: ignore[union-attr]
    rob = rob2_form()
    judgements = [f for f in rob.fields if f.key.endswith("_judgement")]
    assert [f.key for f in judgements] == [f"d{i}_judgement" for i in range(1, 6)] + [
        "overall_judgement"
    ]
    assert all(f.options == ("Low risk", "Some concerns", "High risk") for f in judgements)
    assert all(rob.field(f.key.replace("_judgement", "_support")) for f in judgements)
    for name, make in TEMPLATES.items():
        assert make().template == name and template(name.upper()) == make()
        assert make.__doc__ and ("Source" in make.__doc__ or "litdesk" in make.__doc__)
    with pytest.raises(FormInvalid) as err:
        template("cochrane")
    assert err.value.code == "form_template"


def test_values_are_typed_and_errors_name_the_field_by_its_label():
    form = pico_form()
    values = check_values(
        form,
        {
            "population": "adults over 60",
            "outcome": "stroke",
            "study_design": "randomised controlled TRIAL",
            "sample_size": "1,204",
            "effect_value": "0.82",
            "ci_lower": ".7",
            "ci_upper": 0.96,
            "comparator": "  ",
        },
    )
    assert values == {
        "population": "adults over 60",
        "outcome": "stroke",
        "study_design": "Randomised controlled trial",
        "sample_size": 1204,
        "effect_value": 0.82,
        "ci_lower": 0.7,
        "ci_upper": 0.96,
    }
    cases = [
        ({"population": "p"}, "outcome", "value_required"),
        ({"population": "p", "outcome": "o", "sample_size": "twelve"}, "sample_size", "value_type"),
        ({"population": "p", "outcome": "o", "ci_lower": "nan"}, "ci_lower", "value_type"),
        ({"population": "p", "outcome": "o", "ci_lower": "1e400"}, "ci_lower", "value_type"),
        ({"population": "p", "outcome": "o", "sample_size": True}, "sample_size", "value_type"),
        (
            {"population": "p", "outcome": "o", "study_design": "poll"},
            "study_design",
            "value_option",
        ),
        ({"population": "p", "outcome": "o", "finding": "x"}, "finding", "value_field"),
    ]
    for raw, field, code in cases:
        with pytest.raises(ValueInvalid) as err:
            check_values(form, raw)
        assert err.value.field == field and err.value.code == code
        assert err.value.to_dict()["details"]["field"] == field  # the key, for a script
        shown = form.field(field)  # a reviewer reads its label; a key outside the form: itself
        named = field if shown is None else shown.label
        assert err.value.message.startswith(f"{named}: ")
        assert shown is None or (named != field and field not in err.value.message)


def test_yes_no_and_text_length():
    form = Form(
        (
            FormField("blinded", "Blinded", type="yesno"),
            FormField("note", "Note", max_length=5),
        )
    )
    assert check_values(form, {"blinded": "Yes"}) == {"blinded": True}
    assert check_values(form, {"blinded": "no"}) == {"blinded": False}
    assert check_values(form, {"blinded": False}) == {"blinded": False}
    with pytest.raises(ValueInvalid, match="^Blinded: answer yes or no$"):
        check_values(form, {"blinded": "maybe"})
    with pytest.raises(ValueInvalid, match="^Note: at most 5 characters$"):
        check_values(form, {"note": "123456"})
    assert value_text(True) == "yes" and value_text(12.0) == "12" and value_text(0.5) == "0.5"


def test_form_rules():
    bad = [
        lambda: FormField("Population", "P"),
        lambda: FormField("passage", "P"),
        lambda: FormField("x", ""),
        lambda: FormField("x", "X", type="date"),  # type: ignore[arg-type]
        lambda: FormField("x", "X", type="choice", options=("one",)),
        lambda: FormField("x", "X", type="choice", options=("a", "A")),
        lambda: FormField("x", "X", options=("a", "b")),
        lambda: FormField("x", "X", max_length=0),
        lambda: Form(()),
        lambda: Form((FormField("x", "X"), FormField("x", "Y"))),
    ]
    for make in bad:
        with pytest.raises(FormInvalid):
            make()
    assert "values" in RESERVED_KEYS and "passage" in RESERVED_KEYS


def test_a_form_change_keeps_values_of_removed_fields():
    old = {"population": "mice", "finding": "growth fell", "method": "calipers"}
    shown = shown_values(pico_form(), old)
    in_form = {s["key"]: s["text"] for s in shown if s["in_form"]}
    kept = {s["key"]: s["text"] for s in shown if not s["in_form"]}
    assert in_form["population"] == "mice" and in_form["outcome"] == ""
    assert kept == {"finding": "growth fell", "method": "calipers"}
    # editing under the new form carries them over unchanged
    again = check_values(
        pico_form(),
        {"population": "mice", "outcome": "growth"},
        kept={"finding": "growth fell", "method": "calipers"},
    )
    assert again == {
        "population": "mice",
        "outcome": "growth",
        "finding": "growth fell",
        "method": "calipers",
    }


def test_json_refusals_and_stored_form():
    for data in (
        [],
        {"fields": "x"},
        {"fields": [], "colour": 1},
        {"schema": 2, "fields": [{"key": "a", "label": "A"}]},
        {"fields": [{"key": "a", "label": "A", "kind": "text"}]},
        {"fields": [{"key": "a", "label": "A", "required": "yes"}]},
        {"fields": [{"key": "a", "label": "A", "type": "choice", "options": [1, 2]}]},
    ):
        with pytest.raises(FormInvalid):
            form_from_json(data)
    from litdesk._errors import IntegrityError

    with pytest.raises(IntegrityError):
        read_form("{not json")
    with pytest.raises(IntegrityError):
        read_form(json.dumps({"fields": []}))


_keys = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda k: k not in RESERVED_KEYS
)
_text = st.text(min_size=1, max_size=30).filter(lambda s: s.strip() != "")


# the strategies the composites draw from, made once (one made inside a composite is made,
# validated and measured again on every draw); the values drawn are the same
_kinds = st.sampled_from(FIELD_TYPES)
_options = st.lists(_text, min_size=2, max_size=6, unique_by=lambda s: s.strip().casefold())
_help = st.text(max_size=40)
_max_length = st.integers(1, 4_000)


@st.composite
def _fields(draw: st.DrawFn) -> FormField:
    kind = draw(_kinds)
    options: tuple[str, ...] = ()
    if kind == "choice":
        opts = draw(_options)
        options = tuple(opts)
    return FormField(
        key=draw(_keys),
        label=draw(_text),
        type=kind,
        options=options,
        help=draw(_help),
        required=draw(st.booleans()),
        max_length=draw(_max_length),
    )


_field_lists = st.lists(_fields(), min_size=1, max_size=8, unique_by=lambda f: f.key)
_template = st.none() | st.sampled_from(["pico", "rob2"])
_revision = st.integers(0, 1_000)


@st.composite
def _forms(draw: st.DrawFn) -> Form:
    fields = draw(_field_lists)
    return Form(
        tuple(fields),
        name=draw(_text),
        template=draw(_template),
        revision=draw(_revision),
    )


@settings(max_examples=150)
@given(_forms())
def test_json_round_trip(form: Form):
    data = json.loads(json.dumps(form_to_json(form)))
    assert form_from_json(data) == form
    assert read_form(json.dumps(form_to_json(form))) == form
