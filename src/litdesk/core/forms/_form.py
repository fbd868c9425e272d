"""An extraction form: ordered, typed fields; validation of values; JSON (pure).

A form is a tuple of :class:`FormField` (key, label, type, options, help text, required,
maximum length) with a ``revision`` that counts its changes and the ``template`` it was
made from (``None``: defined by the reviewers). Values are validated against a form by
:func:`check_values`; every error names its field by its label (its key in the error's
``field``). A form change never loses recorded
values: :func:`shown_values` lists a record's values in the current form's order and,
after them, the values of fields the form no longer has ("not in the current form").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypedDict, cast

from litdesk._errors import InputError, IntegrityError

__all__ = [
    "FIELD_TYPES",
    "FORM_SCHEMA",
    "MAX_FIELDS",
    "MAX_OPTIONS",
    "MAX_TEXT_CHARS",
    "RESERVED_KEYS",
    "FieldType",
    "FieldValue",
    "Form",
    "FormField",
    "FormInvalid",
    "ShownValue",
    "ValueInvalid",
    "check_values",
    "form_from_json",
    "form_to_json",
    "parse_value",
    "read_form",
    "shown_values",
    "value_text",
]

FieldType = Literal["text", "number", "choice", "yesno"]
#: A recorded value: text or a choice (str), a number, or yes/no (bool).
FieldValue = str | int | float | bool

FIELD_TYPES: Final[tuple[FieldType, ...]] = ("text", "number", "choice", "yesno")
FORM_SCHEMA: Final = 1
MAX_FIELDS: Final = 60
MAX_OPTIONS: Final = 30
MAX_TEXT_CHARS: Final = 4_000
MAX_LABEL_CHARS: Final = 200
MAX_HELP_CHARS: Final = 1_000
MAX_NUMBER_CHARS: Final = 40
_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?$")
_YES: Final = frozenset({"yes", "y", "true", "1"})
_NO: Final = frozenset({"no", "n", "false", "0"})
#: Keys an evidence record or its CSV uses for itself (a form field may not take them).
RESERVED_KEYS: Final = frozenset(
    {
        "evidence_id",
        "id",
        "paper_id",
        "title",
        "year",
        "doi",
        "pmid",
        "pmcid",
        "passage",
        "source",
        "location",
        "section",
        "block",
        "block_id",
        "snapshot",
        "source_url",
        "licence",
        "retrieved_at",
        "verification",
        "recheck",
        "created_at",
        "updated_at",
        "study",
        "study_id",
        "values",
        "version",
        "context",
        "form_revision",
        "other_fields",
    }
)


class FormInvalid(InputError):
    """A form breaks a rule (a key, a label, options, a length)."""

    default_code = "form_invalid"


class ValueInvalid(InputError):
    """A value does not fit its field (type, option, length, a required field left empty).
    The message names the field by its ``label`` (what a reviewer sees; its key when it
    has none, as a key outside the form); ``field`` (and the JSON error's ``field``) is its
    key, what a script reads; ``problem`` is the message without the field's name."""

    default_code = "value_invalid"

    def __init__(
        self, field: str, message: str, *, label: str | None = None, code: str | None = None
    ) -> None:
        named = label.strip() if label and label.strip() else field
        super().__init__(f"{named}: {message}", code=code, field=field)
        self.field = field
        self.label = named
        self.problem = message


@dataclass(frozen=True, slots=True)
class FormField:
    """One field of a form. ``options`` only for ``choice``; ``max_length`` limits text."""

    key: str
    label: str
    type: FieldType = "text"
    options: tuple[str, ...] = ()
    help: str = ""
    required: bool = False
    max_length: int = MAX_TEXT_CHARS

    def __post_init__(self) -> None:
        where = f"field {self.key[:40]!r}"
        if not isinstance(self.key, str) or not _KEY.match(self.key):
            raise FormInvalid(
                f"{where}: a key is a lower-case letter then up to 39 letters, digits or _",
                code="field_key",
            )
        if self.key in RESERVED_KEYS:
            raise FormInvalid(f"{where}: the key is reserved by litdesk", code="field_key")
        if not isinstance(self.label, str) or not 1 <= len(self.label.strip()) <= MAX_LABEL_CHARS:
            raise FormInvalid(f"{where}: a label is 1 to {MAX_LABEL_CHARS} characters")
        if self.type not in FIELD_TYPES:
            raise FormInvalid(f"{where}: type is one of {', '.join(FIELD_TYPES)}")
        if not isinstance(self.help, str) or len(self.help) > MAX_HELP_CHARS:
            raise FormInvalid(f"{where}: help text is at most {MAX_HELP_CHARS} characters")
        if not isinstance(self.required, bool):
            raise FormInvalid(f"{where}: required is true or false")
        if (
            isinstance(self.max_length, bool)
            or not isinstance(self.max_length, int)
            or not 1 <= self.max_length <= MAX_TEXT_CHARS
        ):
            raise FormInvalid(f"{where}: the maximum length is 1 to {MAX_TEXT_CHARS:,}")
        if self.type == "choice":
            opts = self.options
            if not 2 <= len(opts) <= MAX_OPTIONS:
                raise FormInvalid(f"{where}: a choice has 2 to {MAX_OPTIONS} options")
            for o in opts:
                if not isinstance(o, str) or not 1 <= len(o.strip()) <= MAX_LABEL_CHARS:
                    raise FormInvalid(f"{where}: an option is 1 to {MAX_LABEL_CHARS} characters")
            if len({o.strip().casefold() for o in opts}) != len(opts):
                raise FormInvalid(f"{where}: options must differ")
        elif self.options:
            raise FormInvalid(f"{where}: only a choice field has options")

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "label": self.label,
            "type": self.type,
            "options": list(self.options),
            "help": self.help,
            "required": self.required,
            "max_length": self.max_length,
        }


@dataclass(frozen=True, slots=True)
class Form:
    """An ordered set of fields. ``revision`` counts the form's changes (0: never set);
    ``template`` names the ready template it is (``None``: the reviewers' own)."""

    fields: tuple[FormField, ...]
    name: str = "Custom form"
    template: str | None = None
    revision: int = 0

    def __post_init__(self) -> None:
        if not 1 <= len(self.fields) <= MAX_FIELDS:
            raise FormInvalid(f"a form has 1 to {MAX_FIELDS} fields", code="form_size")
        keys = [f.key for f in self.fields]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise FormInvalid(f"field {dup[0]!r} appears twice", code="field_key")
        if not isinstance(self.name, str) or not 1 <= len(self.name.strip()) <= MAX_LABEL_CHARS:
            raise FormInvalid(f"a form's name is 1 to {MAX_LABEL_CHARS} characters")
        if (
            isinstance(self.revision, bool)
            or not isinstance(self.revision, int)
            or self.revision < 0
        ):
            raise FormInvalid("a form's revision is a whole number from 0")

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(f.key for f in self.fields)

    def field(self, key: str) -> FormField | None:
        for f in self.fields:
            if f.key == key:
                return f
        return None

    def to_dict(self) -> dict[str, object]:
        return form_to_json(self)


# --- values -------------------------------------------------------------------------------


def parse_value(field: FormField, raw: object) -> FieldValue | None:
    """``raw`` (typed, or text from a form or the command line) as ``field``'s value;
    ``None`` when empty. Raises :class:`ValueInvalid` naming the field (by its label)."""
    if raw is None:
        return None
    if isinstance(raw, str) and not raw.strip():
        return None
    if field.type == "text":
        if not isinstance(raw, str):
            raise _invalid(field, "text expected", "value_type")
        if len(raw) > field.max_length:
            raise _invalid(field, f"at most {field.max_length:,} characters", "value_length")
        return raw
    if field.type == "number":
        return _number(field, raw)
    if field.type == "yesno":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().casefold() in _YES | _NO:
            return raw.strip().casefold() in _YES
        raise _invalid(field, "answer yes or no", "value_type")
    # choice
    if not isinstance(raw, str):
        raise _invalid(field, "choose one of the options", "value_type")
    wanted = raw.strip().casefold()
    for option in field.options:
        if option.strip().casefold() == wanted:
            return option
    shown = ", ".join(field.options[:10])
    raise _invalid(field, f"choose one of: {shown}", "value_option")


def _invalid(field: FormField, message: str, code: str) -> ValueInvalid:
    """``field``'s value refused: named by its label, its key in ``field``."""
    return ValueInvalid(field.key, message, label=field.label, code=code)


_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def _number(field: FormField, raw: object) -> int | float:
    if isinstance(raw, bool):
        raise _invalid(field, "a number expected", "value_type")
    if isinstance(raw, int):
        value: int | float = raw
    elif isinstance(raw, float):
        value = raw
    elif isinstance(raw, str):
        text = raw.strip()
        if _THOUSANDS.match(text):  # 1,234 (thousands separators)
            text = text.replace(",", "")
        if len(text) > MAX_NUMBER_CHARS or not _NUMBER.match(text):
            raise _invalid(field, f"a number expected, not {raw[:40]!r}", "value_type")
        value = float(text) if any(c in text for c in ".eE") else int(text)
    else:
        raise _invalid(field, "a number expected", "value_type")
    if isinstance(value, float) and not math.isfinite(value):
        raise _invalid(field, "a finite number expected", "value_type")
    if abs(value) > 1e15:
        raise _invalid(field, "the number is too large", "value_type")
    return value


def check_values(
    form: Form,
    raw: Mapping[str, object],
    *,
    kept: Mapping[str, FieldValue] | None = None,
) -> dict[str, FieldValue]:
    """``raw`` validated against ``form``: each value parsed by its field's type (empty
    ones dropped), every required field given, no key outside the form. ``kept``: values
    of fields the form no longer has, carried over unchanged (a record's earlier values).
    Values come back in the form's order, then the kept ones."""
    unknown = sorted(set(raw) - set(form.keys))
    if unknown:
        raise ValueInvalid(unknown[0], "not a field of this form", code="value_field")
    out: dict[str, FieldValue] = {}
    for f in form.fields:
        value = parse_value(f, raw.get(f.key))
        if value is None:
            if f.required:
                raise _invalid(f, "a value is required", "value_required")
            continue
        out[f.key] = value
    for k, v in (kept or {}).items():
        if k not in out and k not in form.keys and _KEY.match(k):
            out[k] = v
    return out


def value_text(value: FieldValue | None) -> str:
    """A value as a person reads it (yes/no, numbers without a trailing .0)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 10**15 else repr(value)
    return str(value)


class ShownValue(TypedDict):
    """A record's value as a page shows it: in the current form or kept from an earlier one."""

    key: str
    label: str
    type: str
    value: FieldValue | None
    text: str
    in_form: bool


def shown_values(form: Form, values: Mapping[str, FieldValue]) -> list[ShownValue]:
    """A record's values in ``form``'s order (empty ones too), then those of fields the
    form no longer has (``in_form`` False: "not in the current form")."""
    out: list[ShownValue] = []
    for f in form.fields:
        v = values.get(f.key)
        out.append(
            {
                "key": f.key,
                "label": f.label,
                "type": f.type,
                "value": v,
                "text": value_text(v),
                "in_form": True,
            }
        )
    for k, v in values.items():
        if form.field(k) is None:
            out.append(
                {
                    "key": k,
                    "label": k,
                    "type": "text",
                    "value": v,
                    "text": value_text(v),
                    "in_form": False,
                }
            )
    return out


# --- JSON ------------------------------------------------------------------------------------


def form_to_json(form: Form) -> dict[str, object]:
    """The form as a JSON object (:func:`form_from_json` reads it back)."""
    return {
        "schema": FORM_SCHEMA,
        "name": form.name,
        "template": form.template,
        "revision": form.revision,
        "fields": [f.to_dict() for f in form.fields],
    }


_FIELD_KEYS: Final = frozenset(
    {"key", "label", "type", "options", "help", "required", "max_length"}
)


def form_from_json(data: object) -> Form:
    """A form from untrusted JSON (an uploaded file, an API body). ``schema``, ``name``,
    ``template`` and ``revision`` are optional; unknown keys are refused."""
    if not isinstance(data, dict):
        raise FormInvalid("a form is a JSON object with a list of fields")
    extra = sorted(set(data) - {"schema", "name", "template", "revision", "fields"})
    if extra:
        raise FormInvalid(f"unknown form key {extra[0][:40]!r}")
    if data.get("schema", FORM_SCHEMA) != FORM_SCHEMA:
        raise FormInvalid(f"unknown form schema {data.get('schema')!r}", code="form_schema")
    fields = data.get("fields")
    if not isinstance(fields, list):
        raise FormInvalid("a form's fields are a list")
    if len(fields) > MAX_FIELDS:
        raise FormInvalid(f"a form has 1 to {MAX_FIELDS} fields", code="form_size")
    parsed = tuple(_field(i, item) for i, item in enumerate(fields, 1))
    name = data.get("name", "Custom form")
    template = data.get("template")
    revision = data.get("revision", 0)
    if not isinstance(name, str):
        raise FormInvalid("a form's name is text")
    if template is not None and not isinstance(template, str):
        raise FormInvalid("a form's template is a name or null")
    if not isinstance(revision, int):
        raise FormInvalid("a form's revision is a whole number")
    return Form(parsed, name=name, template=template, revision=revision)


def _field(n: int, item: object) -> FormField:
    if not isinstance(item, dict):
        raise FormInvalid(f"field {n} is not an object")
    extra = sorted(set(item) - _FIELD_KEYS)
    if extra:
        raise FormInvalid(f"field {n}: unknown key {str(extra[0])[:40]!r}")
    key, label = item.get("key"), item.get("label")
    kind = item.get("type", "text")
    options = item.get("options", [])
    help_text = item.get("help", "") or ""
    if not isinstance(key, str) or not isinstance(label, str):
        raise FormInvalid(f"field {n}: key and label are text", code="field_key")
    if kind not in FIELD_TYPES:
        raise FormInvalid(f"field {key[:40]!r}: type is one of {', '.join(FIELD_TYPES)}")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise FormInvalid(f"field {key[:40]!r}: options are a list of text")
    if len(options) > MAX_OPTIONS:
        raise FormInvalid(f"field {key[:40]!r}: a choice has 2 to {MAX_OPTIONS} options")
    return FormField(
        key=key,
        label=label,
        type=cast(FieldType, kind),
        options=tuple(options),
        help=help_text if isinstance(help_text, str) else cast(str, help_text),
        required=cast(bool, item.get("required", False)),
        max_length=cast(int, item.get("max_length", MAX_TEXT_CHARS)),
    )


def read_form(text: str) -> Form:
    """A form from stored text (a Study's form): any failure is an integrity error."""
    try:
        return form_from_json(json.loads(text))
    except (ValueError, InputError) as exc:
        message = exc.message if isinstance(exc, InputError) else "not JSON"
        raise IntegrityError(
            f"invalid stored form: {message}", code="stored_form_invalid"
        ) from None
