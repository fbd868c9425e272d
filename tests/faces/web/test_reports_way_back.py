"""A built report served in the workspace starts with a way back to Reports; the file keeps none."""

from __future__ import annotations

from litdesk.faces.web.routes.reports import BACK_LINK, with_way_back


def test_served_report_starts_with_a_way_back_the_file_keeps_none() -> None:
    page = '<!DOCTYPE html><html><head><title>r</title></head><body data-x="1">\n<h1>R</h1></body></html>'
    served = with_way_back(page)
    assert served.index(BACK_LINK) > served.index('<body data-x="1">')
    assert served.index(BACK_LINK) < served.index("<h1>R</h1>")
    assert served.replace("\n" + BACK_LINK, "") == page and 'href="/reports"' in BACK_LINK
    assert with_way_back("<p>no body</p>").startswith(BACK_LINK)
