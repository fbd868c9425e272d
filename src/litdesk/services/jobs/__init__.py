"""Background jobs in the store: :class:`Jobs` (submit, get, list, cancel; claim, progress,
finish, fail) and :class:`JobRunner` (worker threads running handlers by kind).

All state is in the store's ``jobs`` table, so several processes (issue 17's workers on
one PostgreSQL) share one queue; a job whose worker died is claimed again and resumes.
"""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._budget import ImportsBusy, MemoryBudget, upload_cost, zip_cost
    from ._jobs import (
        MAX_ACTIVE_JOBS,
        MAX_ATTEMPTS,
        MAX_PARAMS_BYTES,
        ClaimedJob,
        JobInputInvalid,
        JobLeaseLost,
        JobNotFound,
        Jobs,
        JobStatus,
        JobView,
        TooManyJobs,
        new_job_id,
    )
    from ._runner import (
        DEFAULT_LEASE_SECONDS,
        Handler,
        JobContext,
        JobFailure,
        JobRunner,
        failure,
        worker_name,
    )

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "MAX_ACTIVE_JOBS",
    "MAX_ATTEMPTS",
    "MAX_PARAMS_BYTES",
    "ClaimedJob",
    "Handler",
    "ImportsBusy",
    "JobContext",
    "JobFailure",
    "JobInputInvalid",
    "JobLeaseLost",
    "JobNotFound",
    "JobRunner",
    "JobStatus",
    "JobView",
    "Jobs",
    "MemoryBudget",
    "TooManyJobs",
    "failure",
    "new_job_id",
    "upload_cost",
    "worker_name",
    "zip_cost",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
