"""Sharing a Study: its owner gives an account a role (owner, editor, viewer) or takes it
away; members read the member list and the Study's history (who did what, when). The acting
account is a parameter; the rules are the store's (:func:`require_study`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import Store, list_dedup_entries, repo
from litdesk.adapters.store import accounts as acc
from litdesk.services.workspace import now_iso

__all__ = ["HistoryView", "MembersView", "Sharing"]


@dataclass(frozen=True, slots=True)
class MembersView:
    study_id: str
    owner: str
    members: list[dict[str, str | None]]
    #: the Study's name (a page's heading)
    study_name: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "owner": self.owner,
            "members": self.members,
        }


@dataclass(frozen=True, slots=True)
class HistoryView:
    study_id: str
    entries: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"study_id": self.study_id, "entries": self.entries}


class Sharing:
    """Study roles and history for the acting account ``owner``."""

    def __init__(self, store: Store, owner: str) -> None:
        self.store = store
        self.owner = owner

    def _members(self, conn: Any, study_id: str, name: str = "") -> MembersView:
        rows = acc.list_members(conn, study_id)
        creator = acc.study_creator(conn, study_id)
        return MembersView(
            study_id,
            creator,
            [{"account_id": m.account_id, "username": m.username, "role": m.role} for m in rows],
            name,
        )

    def members(self, study: str) -> MembersView:
        with self.store.read() as conn:
            row, _ = repo.study_with_role(conn, study, account=self.owner, need="read")
            return self._members(conn, row.id, row.name)

    def share(self, study: str, username: str, role: str | None) -> MembersView:
        """Give ``username`` ``role`` in the Study (``None``: remove); owners only."""
        if role is not None and role not in acc.ROLES:
            raise InputError(f"a role is one of {', '.join(acc.ROLES)}", code="bad_role")
        now = now_iso()
        with self.store.write() as conn:
            row, _ = repo.study_with_role(conn, study, account=self.owner, need="owner")
            account = acc.find_account(conn, username.strip().lower()[:80])
            if account is None:
                raise NotFoundError(f"no account named {username[:80]!r}", code="account_not_found")
            if account.id == acc.study_creator(conn, row.id):
                raise InputError("the Study's creator always owns it", code="creator_role")
            acc.set_member(conn, row.id, account.id, role, self.owner, now)
            acc.add_history(
                conn, row.id, self.owner, "member_" + (role or "removed"), account.username, now
            )
            return self._members(conn, row.id, row.name)

    def history(self, study: str, *, limit: int = 500) -> HistoryView:
        """Newest first: the Study's writes (papers, notes, evidence, runs, imports, roles)
        and its deduplication runs and decisions, each with who and when."""
        limit = max(1, min(limit, 5_000))
        with self.store.read() as conn:
            row, _ = repo.study_with_role(conn, study, account=self.owner, need="read")
            entries = acc.list_history(conn, row.id, limit=limit)
            dedup = list_dedup_entries(conn, row.id)[-limit:]
            names = {a.id: a.username for a in acc.list_accounts(conn)}
        out: list[dict[str, Any]] = [
            {
                "at": e.at,
                "account_id": e.account_id,
                "username": e.username or e.account_id,
                "action": e.action,
                "target": e.target,
            }
            for e in entries
        ]
        for d in dedup:
            who = str(d.data.get("by") or d.data.get("owner") or acc.LOCAL_OWNER)[:80]
            out.append(
                {
                    "at": d.created_at,
                    "account_id": who,
                    "username": names.get(who, who),
                    "action": "dedup_" + (d.decision or d.kind),
                    "target": f"#{d.seq}",
                }
            )
        out.sort(key=lambda e: str(e["at"]), reverse=True)
        return HistoryView(row.id, out[:limit])
