"""The report page's label table (pure data): every language has the English keys with the
same placeholders; a language is chosen by code or name and an unknown one is refused
with the known ones listed."""

from __future__ import annotations

import string

import pytest

from litdesk._errors import InputError
from litdesk.core.report import (
    DEFAULT_LABELS,
    LABEL_LANGUAGES,
    UnknownLabelLanguage,
    check_label_language,
    label_language_names,
    report_labels,
)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_language_has_the_english_keys_and_placeholders() -> None:
    english = report_labels("en")
    assert DEFAULT_LABELS == "en" and LABEL_LANGUAGES[0] == "en"
    assert {"de", "fr", "es"} <= set(LABEL_LANGUAGES)
    for code in LABEL_LANGUAGES:
        labels = report_labels(code)
        assert set(labels) == set(english), code
        for key, text in labels.items():
            assert text.strip(), (code, key)
            assert _fields(text) == _fields(english[key]), (code, key)
        assert len(labels["months"].split()) == 12
        if code != "en":  # translated: the headings are not the English ones
            same = [
                k for k in ("papers", "questions", "about", "col_title") if labels[k] == english[k]
            ]
            assert same in ([], ["questions"]), (code, same)  # French "Questions" is French


def test_a_label_language_is_chosen_by_code_or_name() -> None:
    assert check_label_language(None) == check_label_language("  ") == "en"
    assert check_label_language(" DE ") == "de"
    assert check_label_language("German") == check_label_language("deutsch") == "de"
    assert check_label_language("Español") == "es" and check_label_language("french") == "fr"
    assert label_language_names() == {"en": "English", "de": "Deutsch", "fr": "Français",
                                      "es": "Español"}  # fmt: skip


def test_an_unknown_label_language_is_refused_with_the_known_ones() -> None:
    with pytest.raises(UnknownLabelLanguage) as err:
        check_label_language("Klingon")
    assert isinstance(err.value, InputError) and err.value.code == "labels"
    message = err.value.message
    assert "klingon" in message
    for name in ("English (en)", "Deutsch (de)", "Français (fr)", "Español (es)"):
        assert name in message
    assert err.value.details["known"] == list(LABEL_LANGUAGES)
