"""Extraction forms (pure): a Study's evidence form, its validation, JSON and templates."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._form import (
        FIELD_TYPES,
        FORM_SCHEMA,
        MAX_FIELDS,
        MAX_OPTIONS,
        MAX_TEXT_CHARS,
        RESERVED_KEYS,
        FieldType,
        FieldValue,
        Form,
        FormField,
        FormInvalid,
        ShownValue,
        ValueInvalid,
        check_values,
        form_from_json,
        form_to_json,
        parse_value,
        read_form,
        shown_values,
        value_text,
    )
    from ._templates import TEMPLATES, default_form, pico_form, rob2_form, template

__all__ = [
    "FIELD_TYPES",
    "FORM_SCHEMA",
    "MAX_FIELDS",
    "MAX_OPTIONS",
    "MAX_TEXT_CHARS",
    "RESERVED_KEYS",
    "TEMPLATES",
    "FieldType",
    "FieldValue",
    "Form",
    "FormField",
    "FormInvalid",
    "ShownValue",
    "ValueInvalid",
    "check_values",
    "default_form",
    "form_from_json",
    "form_to_json",
    "parse_value",
    "pico_form",
    "read_form",
    "rob2_form",
    "shown_values",
    "template",
    "value_text",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
