"""The HTTP status a typed error answers with: codes mapped on purpose win over the class."""

from __future__ import annotations

from litdesk._errors import NotFoundError, RefusedError
from litdesk.faces.web._errors import status_of
from litdesk.services.workspace import StudyExportTooLarge


def test_a_study_too_large_to_export_is_not_a_refusal_of_rights() -> None:
    assert status_of(StudyExportTooLarge("over the ZIP's limits")) == 422
    assert status_of(RefusedError("not yours")) == 403
    assert status_of(NotFoundError("no such Study")) == 404
