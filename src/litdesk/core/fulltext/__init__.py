"""Full text: JATS parsing with the licence gate (pure)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._jats import (
        MAX_BLOCK_CHARS_TOTAL,
        MAX_BLOCKS,
        MAX_DEPTH,
        MAX_XML_CHARS,
        SECTION_SEPARATOR,
        Block,
        FullText,
        FullTextMalformed,
        FullTextNoBody,
        FullTextRefused,
        FullTextWrongPaper,
        licence_from_url,
        parse_fulltext,
        readable_licence_url,
    )

__all__ = [
    "MAX_BLOCKS",
    "MAX_BLOCK_CHARS_TOTAL",
    "MAX_DEPTH",
    "MAX_XML_CHARS",
    "SECTION_SEPARATOR",
    "Block",
    "FullText",
    "FullTextMalformed",
    "FullTextNoBody",
    "FullTextRefused",
    "FullTextWrongPaper",
    "licence_from_url",
    "parse_fulltext",
    "readable_licence_url",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
