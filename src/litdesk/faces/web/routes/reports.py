"""The report wizard ``/reports/new`` (tabs Documents, Questions, Summary, Synthesis,
Layout, Language — the prose's and the page labels' —, HTML: write the report or answer in
the chat only; what will be extractive or cannot be made is said before it runs), the
build as a ``report.build`` background job watched at ``/reports/job/<id>`` (progress per
unit, cancellable), and the built reports: opened in the browser at ``/reports/view/<id>`` (the
report's own CSP) and downloaded as the CLI's file at ``/reports/download/<id>``.

"Answer in the chat only" queues the questions as rounds of this browser's paper chat (one
chat job, ``app.reports.submit_chat``) and lands on the chat page; no HTML is built.

Each route parses into a :class:`ReportRequest` (checked there, as for the CLI) and calls
one method of ``app.reports``."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.library import ChatBusy
from litdesk.services.synthesis import ReportRequest

from .._deps import AppDep, OwnerDep
from .._render import page
from .chat import keep_session, session_token

__all__ = ["BACK_LINK", "VIEW_PREFIX", "api", "pages", "with_way_back"]

pages = APIRouter()
api = APIRouter(tags=["reports"])

VIEW_PREFIX: Final = "/reports/view/"
JobId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="A report build job's id.")]
BuildId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{16,64}$", description="A build id.")]
Summary = Literal["none", "bullets", "prose"]
Detail = Literal["per-paper", "cross-paper", "both"]
Layout = Literal["column", "contents", "compare"]
Output = Literal["html", "chat"]


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
    study: str | None = Field(
        None, max_length=200, description="A Study (id or name): the PDFs of its papers."
    )
    labels: str = Field(
        "en", max_length=40, description="The page labels' language: en, de, fr or es."
    )
    output: Output = Field(
        "html",
        description="html: write the HTML report; chat: answer the questions in this "
        "browser's paper chat only (no report).",
    )

    def request(self, chat_token: str | None = None) -> ReportRequest:
        """``chat_token``: the browser's chat session, for its answers (``from_chat``) or,
        answering in the chat only, as the chat the rounds go to."""
        chat = self.output == "chat"
        return ReportRequest(
            tuple(self.papers), self.whole_library, tuple(self.questions), self.summary,
            self.synthesis, self.layout, self.language, self.detail_mode,
            chat_token=chat_token if self.from_chat or chat else None, study=self.study or None,
            labels=self.labels, chat_only=chat,
        )  # fmt: skip


def _chat_token(request: Request) -> str | None:
    """The browser's chat token, when it has a chat session (a new one has no answers)."""
    token, new = session_token(request)
    return None if new else token


@pages.get("/reports", response_class=HTMLResponse)
def reports_page(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    data = app.reports.reports(owner=owner).to_dict()
    return page(request, "reports.html", data, title="Reports")


@api.get("/reports", summary="The reports built from the wizard, newest first")
def reports_api(app: AppDep, owner: OwnerDep) -> dict[str, object]:
    return app.reports.reports(owner=owner).to_dict()


@pages.get("/reports/new", response_class=HTMLResponse)
def wizard_page(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    token, _ = session_token(request)
    data = app.reports.wizard(token, owner=owner).to_dict()
    data["studies"] = app.studies.studies(owner=owner).studies
    return page(request, "report_wizard.html", data, title="Report wizard")


@api.post("/reports/plan", summary="What a build will make: extractive parts, what cannot be made")
def plan_api(app: AppDep, owner: OwnerDep, body: WizardBody) -> dict[str, object]:
    return app.reports.plan(body.request(), owner=owner).to_dict()


@api.post(
    "/reports/build",
    status_code=202,
    summary="Queue the build (a report.build job: answers, summaries, synthesis, the HTML)",
)
def build_api(request: Request, app: AppDep, owner: OwnerDep, body: WizardBody) -> Response:
    if body.output == "chat":  # rounds of this browser's paper chat (a new one if none)
        token, new = session_token(request)
        try:
            rounds = app.reports.submit_chat(body.request(token), owner=owner)
        except ChatBusy as exc:  # one question in flight per chat, on any worker
            busy = {"error": "ChatBusy", "code": exc.code, "message": exc.message,
                    "job": exc.details.get("job")}  # fmt: skip
            return keep_session(JSONResponse(busy, status_code=409), token, new)
        app.chat_runner.wake()
        return keep_session(JSONResponse(rounds.to_dict(), status_code=202), token, new)
    job = app.reports.submit(body.request(_chat_token(request)), owner=owner)
    app.job_runner.wake()  # claim it now, not at the next poll
    return JSONResponse(job.to_dict(), status_code=202)


@api.get("/reports/jobs/{job_id}", summary="A report build job: status, units done, the result")
def job_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, object]:
    return app.reports.job(job_id, owner=owner).to_dict()


@api.post("/reports/jobs/{job_id}/cancel", summary="Cancel a report build")
def cancel_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, object]:
    return app.reports.cancel(job_id, owner=owner).to_dict()


@pages.get("/reports/job/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, app: AppDep, owner: OwnerDep, job_id: JobId) -> Response:
    data = app.reports.job(job_id, owner=owner).to_dict()
    return page(request, "report_job.html", data, title="Building a report")


@pages.post("/reports/job/{job_id}/cancel")
def cancel_form(app: AppDep, owner: OwnerDep, job_id: JobId) -> Response:
    app.reports.cancel(job_id, owner=owner)
    return RedirectResponse(f"/reports/job/{job_id}", status_code=303)


@pages.post("/reports/build")
def build_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    papers: Annotated[list[str] | None, Form(max_length=200)] = None,
    scope: Annotated[Literal["papers", "library", "study"] | None, Form()] = None,
    study: Annotated[str, Form(max_length=200)] = "",
    questions: Annotated[str, Form(max_length=25_000)] = "",
    summary: Annotated[Summary, Form()] = "none",
    synthesis: Annotated[str, Form(max_length=10)] = "",
    layout: Annotated[Layout, Form()] = "column",
    language: Annotated[str, Form(max_length=40)] = "",
    detail_mode: Annotated[Detail, Form()] = "per-paper",
    from_chat: Annotated[str, Form(max_length=10)] = "",
    labels: Annotated[str, Form(max_length=40)] = "en",
    output: Annotated[Output, Form()] = "html",
) -> Response:
    if scope is None:  # a client without the wizard's radio: a Study when only it is named
        scope = "study" if study and not papers else "papers"
    whole = scope == "library"
    token, new = session_token(request)
    chat = output == "chat"
    report = ReportRequest(
        tuple(papers or ()) if scope == "papers" else (), whole, tuple(questions.splitlines()),
        summary, synthesis == "on", layout, language, detail_mode,
        chat_token=token if chat else _chat_token(request) if from_chat == "on" else None,
        study=(study or None) if scope == "study" else None, labels=labels, chat_only=chat,
    )  # fmt: skip
    if chat:  # the questions as rounds of this browser's paper chat: its page shows them
        rounds = app.reports.submit_chat(report, owner=owner)
        app.chat_runner.wake()
        return keep_session(RedirectResponse(f"/chat#job-{rounds.id}", status_code=303), token, new)
    job = app.reports.submit(report, owner=owner)
    app.job_runner.wake()
    return RedirectResponse(f"/reports/job/{job.id}", status_code=303)


BACK_LINK: Final = (
    '<nav class="workspace-back" aria-label="Workspace">'
    '<a href="/reports">‹ Back to Reports</a> · <a href="/reports/new">New report</a></nav>'
)


def with_way_back(html: str) -> str:
    """The report as served in the workspace: a way back to the Reports page first in its body
    (the downloaded file stays as built: it is opened outside the workspace)."""
    at = html.find("<body")
    end = html.find(">", at) if at >= 0 else -1
    if end < 0:
        return BACK_LINK + html
    return html[: end + 1] + "\n" + BACK_LINK + html[end + 1 :]


@pages.get(VIEW_PREFIX + "{build_id}", response_class=HTMLResponse)
def view_report(app: AppDep, owner: OwnerDep, build_id: BuildId) -> Response:
    return HTMLResponse(with_way_back(app.reports.report(build_id, owner=owner).html()))


@pages.get("/reports/download/{build_id}")
@api.get("/reports/download/{build_id}", summary="The built report as the CLI's HTML file")
def download_report(app: AppDep, owner: OwnerDep, build_id: BuildId) -> Response:
    built = app.reports.report(build_id, owner=owner)
    return Response(
        built.path.read_bytes(),
        media_type="text/html; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{built.file_name}"'},
    )
