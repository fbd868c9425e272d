"""Following an AI-assistance call's job over HTTP, as the pages do: the submit answers 202
with the job; its status URL is polled until the job ends."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class Answer:
    """What the call answered: the job's result (``status`` 200) or its error (with the
    HTTP status the call would have had); a refusal at submit as it came."""

    status: int
    body: dict[str, Any]
    job: dict[str, Any] | None
    headers: httpx.Headers


def follow(
    c: httpx.Client, job_id: str, *, until: Any = None, seconds: float = 60
) -> dict[str, Any]:
    """Poll the job until ``until(job)`` (default: it has ended)."""
    done = until or (lambda j: not j["active"])
    deadline = time.monotonic() + seconds
    while True:
        r = c.get(f"/api/v1/assist/jobs/{job_id}")
        assert r.status_code == 200, r.text
        job = dict(r.json())
        if done(job):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.05)


def settle(c: httpx.Client, r: httpx.Response, seconds: float = 60) -> Answer:
    """The call's answer: ``r`` itself unless it is a 202 with a job, else the job's end."""
    if r.status_code != 202:
        return Answer(r.status_code, dict(r.json()), None, r.headers)
    accepted = r.json()
    assert accepted["status_url"] == f"/api/v1/assist/jobs/{accepted['job']['id']}"
    assert r.headers["location"] == accepted["status_url"]
    job = follow(c, accepted["job"]["id"], seconds=seconds)
    if job["status"] == "done":
        return Answer(200, dict(job["result"]), job, r.headers)
    error = dict(job["error"])
    return Answer(int(error["status"]), error, job, r.headers)
