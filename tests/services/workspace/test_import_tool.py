"""The reference manager an export file names (``SourceInfo.tool``) survives the stored
import document: a trace read back says "Zotero" as read; an older document (no tool) reads
as none; a tool that is not text is refused as a malformed trace."""

from __future__ import annotations

import pytest

from litdesk.adapters import formats
from litdesk.core.imports import default_source
from litdesk.services.workspace import TraceInvalid, read_import, trace_document

ZOTERO = (
    "TY  - JOUR\r\nTI  - A trial\r\nAU  - Vega, Aurelio\r\nDA  - 2015/08//\r\nPY  - 2015\r\n"
    "DP  - BioMed Central\r\nER  -\r\n\r\n"
)


def test_the_tool_round_trips_through_the_stored_document() -> None:
    trace = formats.loads(ZOTERO.encode(), path="lib.ris")
    assert trace.source.tool == "Zotero"
    doc = trace_document(trace, ["p1"], default_source(trace))
    back, ids = read_import(doc)
    assert back.source == trace.source and ids == ["p1"]
    old = trace_document(trace, ["p1"], None)
    del old["trace"]["source"]["tool"]
    assert read_import(old)[0].source.tool is None
    old["trace"]["source"]["tool"] = 7
    with pytest.raises(TraceInvalid, match="source tool must be text"):
        read_import(old)
