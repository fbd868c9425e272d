"""Model assistance rules (pure): consent bound to content, strict parsing of structured
answers, bounded sources and quote verification after whitespace normalisation."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._consent import CONSENT_VERSION, ConsentNotice, check_consent, consent_token, is_loopback
    from ._errors import AnswerRefused, ConsentRequired, SourceRefused
    from ._extraction import (
        EXTRACTION_MAX_ANSWER_CHARS,
        EXTRACTION_MAX_TOKENS,
        EXTRACTION_SYSTEM,
        FIELD_NAMES,
        ExtractionDraft,
        FieldSuggestion,
        extraction_message,
        extraction_schema,
        parse_extraction,
    )
    from ._form_extraction import (
        FINDING_KEY,
        FORM_EXTRACTION_SYSTEM,
        MAX_FORM_DESCRIPTION_CHARS,
        AskedForm,
        FormDraft,
        FormSuggestion,
        ask_form,
        form_answer_chars,
        form_extraction_message,
        form_extraction_schema,
        form_max_tokens,
        parse_form_extraction,
    )
    from ._parse import (
        LENGTH_STOPS,
        REFUSAL_STOPS,
        check_stop,
        exact_keys,
        has_control,
        load_json_object,
        text_field,
    )
    from ._source import (
        MAX_BLOCK_CHARS,
        MAX_SOURCE_CHARS,
        BoundedSource,
        SourceBlock,
        bound_source,
        quote_in,
    )

__all__ = [
    "CONSENT_VERSION",
    "EXTRACTION_MAX_ANSWER_CHARS",
    "EXTRACTION_MAX_TOKENS",
    "EXTRACTION_SYSTEM",
    "FIELD_NAMES",
    "ExtractionDraft",
    "FieldSuggestion",
    "extraction_message",
    "extraction_schema",
    "parse_extraction",
    "FINDING_KEY",
    "FORM_EXTRACTION_SYSTEM",
    "MAX_FORM_DESCRIPTION_CHARS",
    "AskedForm",
    "FormDraft",
    "FormSuggestion",
    "ask_form",
    "form_answer_chars",
    "form_extraction_message",
    "form_extraction_schema",
    "form_max_tokens",
    "parse_form_extraction",
    "LENGTH_STOPS",
    "MAX_BLOCK_CHARS",
    "MAX_SOURCE_CHARS",
    "REFUSAL_STOPS",
    "AnswerRefused",
    "BoundedSource",
    "ConsentNotice",
    "ConsentRequired",
    "SourceBlock",
    "SourceRefused",
    "bound_source",
    "check_consent",
    "check_stop",
    "consent_token",
    "exact_keys",
    "has_control",
    "is_loopback",
    "load_json_object",
    "quote_in",
    "text_field",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
