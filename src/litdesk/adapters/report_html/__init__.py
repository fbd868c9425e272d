"""The synthesis report as one self-contained HTML file (Jinja2, CSP by hashes)."""

from ._render import (
    MAX_REPORT_BYTES,
    CitationView,
    PageView,
    ReportMeta,
    ReportTooLarge,
    content_security_policy,
    created_words,
    render_html,
)

__all__ = [
    "MAX_REPORT_BYTES",
    "CitationView",
    "PageView",
    "ReportMeta",
    "ReportTooLarge",
    "content_security_policy",
    "created_words",
    "render_html",
]
