"""The report wizard ``/reports/new`` (tabs Documents, Questions, Summary, Synthesis,
Layout, Language; what will be extractive or cannot be made is said before it runs), the
build as a ``report.build`` background job watched at ``/reports/job/<id>`` (progress per
unit, cancellable), and the built reports: opened in the browser at ``/reports/view/<id>`` (the
report's own CSP) and downloaded as the CLI's file at ``/reports/download/<id>``."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.jobs import JobView
from litdesk.services.library import ChatSession
from litdesk.services.synthesis import ReportDesk, WizardForm

from .._deps import AppDep, DeskDep, OwnerDep, ReportsDep, opened_app
from .._render import page
from .chat import session_token

__all__ = ["VIEW_PREFIX", "api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["reports"])

VIEW_PREFIX: Final = "/reports/view/"
JobId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="A report build job's id.")]
BuildId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{16,64}$", description="A build id.")]
Summary = Literal["none", "bullets", "prose"]
Detail = Literal["per-paper", "cross-paper"]
Layout = Literal["column", "contents", "compare"]


class WizardBody(BaseModel):
    papers: list[str] = Field(default_factory=list, max_length=200)
    whole_library: bool = False
    questions: list[str] = Field(default_factory=list, max_length=20)
    summary: Summary = "none"
    synthesis: bool = False
    layout: Layout = "column"
    language: str | None = Field(None, max_length=40)
    detail_mode: Detail = "per-paper"
    from_chat: bool = Field(False, description="Reuse this browser session's chat answers.")

    def form(self, chat_session: str | None = None) -> WizardForm:
        return WizardForm(
            tuple(self.papers), self.whole_library,
            tuple(q for q in self.questions if q.strip()), self.summary, self.synthesis,
            self.layout, self.language or None, self.detail_mode,
            chat_session if self.from_chat else None,
        )  # fmt: skip


def wizard_view(reports: ReportDesk, session: ChatSession) -> dict[str, Any]:
    several = session.whole_library or len(session.papers) > 1
    form = WizardForm(
        () if session.whole_library else session.papers,
        session.whole_library,
        tuple(session.questions),
        # the chat answered each question once across its scope: so does the report,
        # which then reuses those answers
        detail_mode="cross-paper" if session.rounds and several else "per-paper",
    )
    return {
        "form": form.to_params(),
        "library": list(session.library),
        "plan": reports.plan(form).to_dict() if session.library else None,
        "from_chat": bool(session.rounds),
    }


@pages.get("/reports", response_class=HTMLResponse)
def reports_page(request: Request, reports: ReportsDep, desk: DeskDep) -> Response:
    data = {"reports": reports.reports(owner=desk.owner)}
    return page(request, "reports.html", data, title="Reports")


@api.get("/reports", summary="The reports built from the wizard, newest first")
def reports_api(reports: ReportsDep, desk: DeskDep) -> dict[str, Any]:
    return {"reports": reports.reports(owner=desk.owner)}


@pages.get("/reports/new", response_class=HTMLResponse)
def wizard_page(request: Request, reports: ReportsDep, app: AppDep, owner: OwnerDep) -> Response:
    token, _ = session_token(request)
    data = wizard_view(reports, app.library.chat(token, owner=owner))
    return page(request, "report_wizard.html", data, title="Report wizard")


@api.post("/reports/plan", summary="What a build will make: extractive parts, what cannot be made")
def plan_api(reports: ReportsDep, body: WizardBody) -> dict[str, Any]:
    return reports.plan(body.form()).to_dict()


@api.post(
    "/reports/build",
    status_code=202,
    summary="Queue the build (a report.build job: answers, summaries, synthesis, the HTML)",
)
def build_api(
    request: Request, reports: ReportsDep, app: AppDep, desk: DeskDep, body: WizardBody
) -> dict[str, Any]:
    token, new = session_token(request)
    form = body.form(None if new else app.library.chat_session_id(token, owner=desk.owner))
    job = reports.submit(form, owner=desk.owner)
    opened_app(request).job_runner.wake()  # claim it now, not at the next poll
    return job_view(job)


def job_view(job: JobView) -> dict[str, Any]:
    return job.to_dict() | {"page": f"/reports/job/{job.id}"}


@api.get("/reports/jobs/{job_id}", summary="A report build job: status, units done, the result")
def job_api(reports: ReportsDep, desk: DeskDep, job_id: JobId) -> dict[str, Any]:
    return job_view(reports.job(job_id, owner=desk.owner))


@api.post("/reports/jobs/{job_id}/cancel", summary="Cancel a report build")
def cancel_api(reports: ReportsDep, desk: DeskDep, job_id: JobId) -> dict[str, Any]:
    return job_view(reports.cancel(job_id, owner=desk.owner))


@pages.get("/reports/job/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, reports: ReportsDep, desk: DeskDep, job_id: JobId) -> Response:
    data = job_view(reports.job(job_id, owner=desk.owner))
    return page(request, "report_job.html", data, title="Building a report")


@pages.post("/reports/job/{job_id}/cancel")
def cancel_form(reports: ReportsDep, desk: DeskDep, job_id: JobId) -> Response:
    reports.cancel(job_id, owner=desk.owner)
    return RedirectResponse(f"/reports/job/{job_id}", status_code=303)


@pages.post("/reports/build")
def build_form(
    request: Request,
    reports: ReportsDep,
    app: AppDep,
    desk: DeskDep,
    papers: Annotated[list[str] | None, Form(max_length=200)] = None,
    scope: Annotated[Literal["papers", "library"], Form()] = "papers",
    questions: Annotated[str, Form(max_length=25_000)] = "",
    summary: Annotated[Summary, Form()] = "none",
    synthesis: Annotated[str, Form(max_length=10)] = "",
    layout: Annotated[Layout, Form()] = "column",
    language: Annotated[str, Form(max_length=40)] = "",
    detail_mode: Annotated[Detail, Form()] = "per-paper",
    from_chat: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    whole = scope == "library"
    token, new = session_token(request)
    form = WizardForm(
        () if whole else tuple(papers or ()), whole,
        tuple(q.strip() for q in questions.splitlines() if q.strip()), summary,
        synthesis == "on", layout, language.strip() or None, detail_mode,
        app.library.chat_session_id(token, owner=desk.owner)
        if from_chat == "on" and not new
        else None,
    )  # fmt: skip
    job = reports.submit(form, owner=desk.owner)
    opened_app(request).job_runner.wake()
    return RedirectResponse(f"/reports/job/{job.id}", status_code=303)


@pages.get(VIEW_PREFIX + "{build_id}", response_class=HTMLResponse)
def view_report(reports: ReportsDep, desk: DeskDep, build_id: BuildId) -> Response:
    path, _ = reports.report(build_id, owner=desk.owner)
    return HTMLResponse(path.read_text(encoding="utf-8"))


@pages.get("/reports/download/{build_id}")
@api.get("/reports/download/{build_id}", summary="The built report as the CLI's HTML file")
def download_report(reports: ReportsDep, desk: DeskDep, build_id: BuildId) -> Response:
    path, name = reports.report(build_id, owner=desk.owner)
    return Response(
        path.read_bytes(),
        media_type="text/html; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )
