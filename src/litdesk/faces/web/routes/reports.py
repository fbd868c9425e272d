"""The report wizard ``/reports/new`` (tabs Documents, Questions, Summary, Synthesis,
Layout, Language; what will be extractive or cannot be made is said before it runs), the
build, and the built reports: opened in the browser at ``/reports/view/<id>`` (the
report's own CSP) and downloaded as the CLI's file at ``/reports/download/<id>``."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.library import ChatService
from litdesk.services.synthesis import ReportDesk, WizardForm

from .._library_state import ChatDep, ReportsDep
from .._render import page
from .chat import session_token

__all__ = ["VIEW_PREFIX", "api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["reports"])

VIEW_PREFIX: Final = "/reports/view/"
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

    def form(self) -> WizardForm:
        return WizardForm(
            tuple(self.papers), self.whole_library,
            tuple(q for q in self.questions if q.strip()), self.summary, self.synthesis,
            self.layout, self.language or None, self.detail_mode,
        )  # fmt: skip


def wizard_view(reports: ReportDesk, chat: ChatService, token: str) -> dict[str, Any]:
    session = chat.session(token)
    form = WizardForm(
        () if session.whole_library else session.papers,
        session.whole_library,
        tuple(session.questions),
    )
    return {
        "form": form.to_params(),
        "library": list(session.library),
        "plan": reports.plan(form).to_dict() if session.library else None,
        "from_chat": bool(session.rounds),
    }


@pages.get("/reports", response_class=HTMLResponse)
def reports_page(request: Request, reports: ReportsDep) -> Response:
    return page(request, "reports.html", {"reports": reports.reports()}, title="Reports")


@api.get("/reports", summary="The reports built from the wizard, newest first")
def reports_api(reports: ReportsDep) -> dict[str, Any]:
    return {"reports": reports.reports()}


@pages.get("/reports/new", response_class=HTMLResponse)
def wizard_page(request: Request, reports: ReportsDep, chat: ChatDep) -> Response:
    token, _ = session_token(request)
    data = wizard_view(reports, chat, token)
    return page(request, "report_wizard.html", data, title="Report wizard")


@api.post("/reports/plan", summary="What a build will make: extractive parts, what cannot be made")
def plan_api(reports: ReportsDep, body: WizardBody) -> dict[str, Any]:
    return reports.plan(body.form()).to_dict()


@api.post("/reports/build", summary="Build the report (answers, summaries, synthesis) and write it")
def build_api(reports: ReportsDep, body: WizardBody) -> dict[str, Any]:
    return reports.build(reports.new_build_id(), body.form()).to_dict()


@pages.post("/reports/build")
def build_form(
    reports: ReportsDep,
    papers: Annotated[list[str] | None, Form(max_length=200)] = None,
    scope: Annotated[Literal["papers", "library"], Form()] = "papers",
    questions: Annotated[str, Form(max_length=25_000)] = "",
    summary: Annotated[Summary, Form()] = "none",
    synthesis: Annotated[str, Form(max_length=10)] = "",
    layout: Annotated[Layout, Form()] = "column",
    language: Annotated[str, Form(max_length=40)] = "",
    detail_mode: Annotated[Detail, Form()] = "per-paper",
) -> Response:
    whole = scope == "library"
    form = WizardForm(
        () if whole else tuple(papers or ()), whole,
        tuple(q.strip() for q in questions.splitlines() if q.strip()), summary,
        synthesis == "on", layout, language.strip() or None, detail_mode,
    )  # fmt: skip
    built = reports.build(reports.new_build_id(), form)
    return RedirectResponse(built.to_dict()["open"], status_code=303)


@pages.get(VIEW_PREFIX + "{build_id}", response_class=HTMLResponse)
def view_report(reports: ReportsDep, build_id: BuildId) -> Response:
    path, _ = reports.report(build_id)
    return HTMLResponse(path.read_text(encoding="utf-8"))


@pages.get("/reports/download/{build_id}")
@api.get("/reports/download/{build_id}", summary="The built report as the CLI's HTML file")
def download_report(reports: ReportsDep, build_id: BuildId) -> Response:
    path, name = reports.report(build_id)
    return Response(
        path.read_bytes(),
        media_type="text/html; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )
