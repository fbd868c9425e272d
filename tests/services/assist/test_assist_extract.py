"""Evidence extraction end to end over the service layer: litdesk fetches and bounds the
text, the person consents to exactly it, one call to a scripted model server (both wire
protocols), strict parsing with every quote verified in its block, a draft, review and
save with provenance, and every stored quote re-checked on read."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from typing import Any

import pytest
import sqlalchemy as sa
from tests._model_servers import Scripted, ScriptedModelServer, assist_settings, user_payload
from tests.services.assist._extract_kit import (
    ABSTRACT,
    FULLTEXT,
    PMCID,
    answer,
    europepmc,
    jats,
    respond,
    the_paper,
)

from litdesk._errors import InputError, RefusedError
from litdesk.adapters.store import allowance_owner, assist_usage
from litdesk.core.assist import AnswerRefused, ConsentRequired
from litdesk.services.app import open_app
from litdesk.services.assist import EvidenceAssistant
from litdesk.services.workspace import Workspace, evidence_csv

GOOD = {
    "population": (
        "120 children aged 2-10 in Mali",
        "120 children aged 2-10 years in Mali",
        "abstract",
    ),
    "intervention": ("artesunate 4 mg/kg", "we gave artesunate   4 mg/kg", "abstract"),
    "finding": (
        "Faster parasite clearance with artesunate (24 h vs 36 h)",
        "parasite clearance was faster with artesunate than with\nquinine (median 24 h vs 36 h)",
        "abstract",
    ),
}

ANN = allowance_owner("ann")  # the allowance is kept under the hash of the account id


def run(coro_fn, server: ScriptedModelServer, tmp_path, *, base: str | None = None, **extra: Any):
    settings = assist_settings(server, tmp_path / "data", **extra)

    async def go() -> Any:
        bases = {"europepmc": base} if base else None
        async with open_app(settings, base_urls=bases) as rt_app:
            rt = rt_app.providers
            Workspace(rt.store, owner="ann").save_paper(the_paper())  # ann saved it
            ea = EvidenceAssistant(rt, owner="ann")
            try:
                return await coro_fn(ea)
            finally:
                ea.close()

    return asyncio.run(go())


def _edit_abstract(ea: EvidenceAssistant, old: str, new: str) -> None:
    """Change the stored abstract in place (a later provider update, say)."""
    with ea.providers.store.write() as conn:
        conn.execute(
            sa.text("UPDATE papers SET data = replace(data, :old, :new)"), {"old": old, "new": new}
        )
    ea.providers.workspace()  # nothing cached: the next read sees the new text


async def _suggest(ea: EvidenceAssistant, **kw: Any) -> Any:
    prev = await ea.preview("MED-424242", **kw)
    return await ea.suggest("MED-424242", consent=prev.notice.token, **kw)


def test_valid_quotes_kept_saved_after_review_with_provenance(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.script(Scripted(answer(GOOD), thinking="hidden thoughts {not json"))

    async def go(ea: EvidenceAssistant) -> Any:
        prev = await ea.preview("MED-424242")
        assert prev.notice.host == server.host and prev.notice.local
        assert not prev.bounded.truncated and prev.bounded.blocks[0].id == "abstract"
        draft = await ea.suggest("MED-424242", consent=prev.notice.token)
        assert set(draft.data["fields"]) == {"population", "intervention", "finding"}
        assert draft.data["warnings"] == []
        with pytest.raises(RefusedError) as unreviewed:
            ea.save(draft.id, reviewed=False)
        assert unreviewed.value.code == "review_required"
        saved = ea.save(
            draft.id, reviewed=True, values={"population": "120 Malian children aged 2-10"}
        )
        with pytest.raises(RefusedError) as twice:
            ea.save(draft.id, reviewed=True)
        assert twice.value.code == "draft_saved"
        evidence, problems = ea.providers.workspace().evidence(paper_ref="MED-424242")
        return prev, draft, saved, evidence, problems, ea.provenance(saved.evidence_id)

    prev, draft, saved, evidence, problems, prov = run(go, server, tmp_path)
    sent = user_payload(server.requests[0].body)
    assert sent["blocks"] == [{"id": "abstract", "section": "Abstract", "text": ABSTRACT}]
    assert prev.notice.text == server.requests[0].body["messages"][-1]["content"]
    assert problems == [] and len(evidence) == 1 and evidence[0].recheck == "ok"
    ev = evidence[0].evidence
    assert ev.population == "120 Malian children aged 2-10" and ev.source == "abstract"
    assert "parasite clearance was faster" in ev.passage
    d = prov.to_dict()
    assert d["ok"] and set(d["checks"].values()) == {"ok"}
    assert d["fields"]["population"]["edited"] is True
    assert d["fields"]["population"]["suggestion"] == "120 children aged 2-10 in Mali"
    assert d["fields"]["finding"]["block"] == "abstract"
    assert d["call"]["backend"] == server.kind and d["call"]["host"] == server.host
    assert d["call"]["reasoning"] is True and d["call"]["requested_at"] <= d["call"]["answered_at"]
    # the evidence CSV names the model and keeps each field's original suggestion
    (row,) = csv.DictReader(io.StringIO(evidence_csv(evidence)))
    assert row["model"] == d["call"]["model"] and row["model"]
    assert row["population"] == "120 Malian children aged 2-10"
    assert row["suggested_population"] == "120 children aged 2-10 in Mali"
    assert row["suggested_finding"] == GOOD["finding"][0] and row["suggested_question"] == ""


ADVERSARIAL = {
    "fabricated": ("Cured 90%", "artesunate cured 90% of the children", "abstract"),
    "near_miss": ("artesunate 4 mg/kg", "we gave artesunate 4 mg/kg to 121 children", "abstract"),
    "wrong_block": ("faster", "parasite clearance was faster", "p7"),
    "from_title": (
        "Artesunate vs quinine",
        "Artesunate versus quinine in Malian children",
        "abstract",
    ),
    "injected": ("cures cancer", "the drug cures all cancers", "abstract"),
}


def test_fabricated_near_miss_and_wrong_block_quotes_dropped(model_server_fixture, tmp_path):
    server = model_server_fixture
    fields = {
        "question": ADVERSARIAL["from_title"],
        "population": ADVERSARIAL["fabricated"],
        "method": ADVERSARIAL["near_miss"],
        "intervention": ADVERSARIAL["wrong_block"],
        "limitations": ADVERSARIAL["injected"],
        "finding": GOOD["finding"],
    }
    server.script(Scripted(answer(fields)))
    draft = run(_suggest, server, tmp_path)
    assert set(draft.data["fields"]) == {"finding"}
    assert sorted(draft.data["dropped"]) == sorted(
        ["question", "population", "method", "intervention", "limitations"]
    )
    assert any("p7" in w and "not sent" in w for w in draft.data["warnings"])


@pytest.mark.parametrize(
    ("scripted", "code"),
    [
        (Scripted(answer({"finding": ADVERSARIAL["fabricated"]})), "no_finding"),
        (Scripted(answer({"finding": ADVERSARIAL["injected"]})), "no_finding"),
        (Scripted(answer({"finding": ADVERSARIAL["wrong_block"]})), "no_finding"),
        (Scripted(answer({})), "no_finding"),
        (Scripted(answer(GOOD, cite="S99")), "extra_keys"),
        (Scripted(answer(GOOD)[:-1]), "not_json"),
        (Scripted("Sure! Here is the JSON: " + answer(GOOD)), "not_json"),
        (Scripted(answer({"finding": ("x" * 81_000, "parasite", "abstract")})), "answer_too_long"),
        (Scripted(answer({"finding": ("x" * 4_001, "parasite", "abstract")})), "field_too_long"),
        (Scripted(answer(GOOD), stop="length"), "length_stop"),
        (Scripted("", thinking="I considered the blocks at length"), "hidden_reasoning_only"),
        (Scripted("", stop="length", thinking="..."), "hidden_reasoning_only"),
        (Scripted("", stop="refusal"), "model_refusal"),
        (Scripted(json.dumps({"finding": {"value": 1, "quote": "", "block": ""}})), "bad_shape"),
    ],
)
def test_unusable_answers_refused_nothing_saved(model_server_fixture, tmp_path, scripted, code):
    server = model_server_fixture
    server.script(scripted)

    async def go(ea: EvidenceAssistant) -> Any:
        with pytest.raises(AnswerRefused) as err:
            await _suggest(ea)
        with ea.providers.store.read() as conn:
            drafts = conn.execute(sa.text("SELECT count(*) FROM assist_drafts")).scalar_one()
            evidence = conn.execute(sa.text("SELECT count(*) FROM evidence")).scalar_one()
        return err.value, drafts, evidence

    err, drafts, evidence = run(go, server, tmp_path)
    assert err.code == code, err.message
    assert (drafts, evidence) == (0, 0)  # nothing saved
    assert len(server.requests) == 1


def test_consent_lapses_when_the_text_changes(model_server_fixture, tmp_path):
    server = model_server_fixture

    async def go(ea: EvidenceAssistant) -> Any:
        prev = await ea.preview("MED-424242")
        _edit_abstract(ea, "years in Mali", "years in Mali and Niger")
        with pytest.raises(ConsentRequired) as err:
            await ea.suggest("MED-424242", consent=prev.notice.token)
        fresh = await ea.preview("MED-424242")
        assert fresh.notice.token != prev.notice.token
        return err.value

    err = run(go, server, tmp_path)
    assert err.code == "consent_stale" and server.requests == []


def test_stored_quotes_rechecked_on_read(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.script(Scripted(answer(GOOD)))

    async def go(ea: EvidenceAssistant) -> Any:
        draft = await _suggest(ea)
        saved = ea.save(draft.id, reviewed=True)
        with ea.providers.store.write() as conn:
            row = conn.execute(sa.text("SELECT data FROM assist_provenance")).scalar_one()
            data = json.loads(row)
            data["blocks"][0]["text"] = data["blocks"][0]["text"].replace("Mali", "Niger")
            conn.execute(sa.text("UPDATE assist_provenance SET data = :d"), {"d": json.dumps(data)})
        return ea.provenance(saved.evidence_id)

    tampered = run(go, server, tmp_path)
    assert not tampered.ok
    assert set(tampered.checks.values()) == {"the stored block was altered"}


def test_abstract_change_flags_every_quote(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.script(Scripted(answer(GOOD)))

    async def go(ea: EvidenceAssistant) -> Any:
        draft = await _suggest(ea)
        saved = ea.save(draft.id, reviewed=True)
        _edit_abstract(ea, "parasite clearance", "clearance")
        return ea.provenance(saved.evidence_id)

    prov = run(go, server, tmp_path)
    assert prov.checks["finding"] == "the quote no longer occurs in the paper's abstract"
    assert prov.checks["population"] == "ok"


def test_fulltext_section_extraction_with_context(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.respond_with(
        respond(
            lambda blocks: answer(
                {"finding": ("24 h clearance", "a median of 24 hours", sorted(blocks)[0])}
            )
        )
    )

    async def go(ea: EvidenceAssistant) -> Any:
        prev = await ea.preview("MED-424242", source="fulltext", section="results")
        assert [b.section for b in prev.bounded.blocks] == ["Results", "Results"]
        assert prev.sections == ("Introduction", "Methods", "Results")
        with pytest.raises(InputError) as bad:
            await ea.preview("MED-424242", source="fulltext", section="Discussion")
        assert "Results" in bad.value.message
        draft = await ea.suggest(
            "MED-424242", consent=prev.notice.token, source="fulltext", section="results"
        )
        saved = ea.save(draft.id, reviewed=True)
        evidence, _ = ea.providers.workspace().evidence(paper_ref="MED-424242")
        return saved, evidence

    with europepmc(jats(FULLTEXT)) as base:
        saved, evidence = run(go, server, tmp_path, base=base)
    ev = evidence[0].evidence
    assert ev.source == "fulltext" and ev.context is not None
    assert ev.context.pmcid == PMCID and ev.context.section == "Results"
    assert evidence[0].recheck == "ok" and saved.provenance.ok


def test_fulltext_bounds_disclosed(model_server_fixture, tmp_path):
    server = model_server_fixture
    long_para = "word " * 4_200  # 21,000 characters: skipped
    paras = [f"Paragraph {i}. " + "text " * 1_990 for i in range(6)]  # ~10,000 each
    with europepmc(jats({"Results": [long_para, *paras]})) as base:

        async def go(ea: EvidenceAssistant) -> Any:
            return await ea.preview("MED-424242", source="fulltext")

        prev = run(go, server, tmp_path, base=base)
    b = prev.bounded
    assert b.skipped == ("p1",) and b.omitted == ("p6", "p7")
    assert b.characters <= 48_000 and len(b.blocks) == 4
    assert "partial" in json.loads(prev.notice.text)["coverage"]


def test_allowance_counted_per_call(model_server_fixture, tmp_path):
    server = model_server_fixture
    server.script(Scripted(answer({"finding": ADVERSARIAL["fabricated"]})))

    async def go(ea: EvidenceAssistant) -> Any:
        with pytest.raises(AnswerRefused):
            await _suggest(ea)
        from datetime import UTC, datetime

        return assist_usage(ea.providers.store, datetime.now(UTC).date().isoformat())

    assert run(go, server, tmp_path) == {ANN: {"ok": 1}}


def test_save_and_recheck_on_postgres(pg_schema, tmp_path):
    """The draft, evidence and provenance tables and the one-transaction save on PostgreSQL."""
    from tests._model_servers import model_server

    with model_server("openai") as server:
        server.script(Scripted(answer(GOOD)))

        async def go(ea: EvidenceAssistant) -> Any:
            draft = await _suggest(ea)
            saved = ea.save(draft.id, reviewed=True)
            with pytest.raises(RefusedError):
                ea.save(draft.id, reviewed=True)
            other = EvidenceAssistant(ea.providers, owner="bob")
            try:
                from litdesk._errors import NotFoundError

                with pytest.raises(NotFoundError):
                    other.draft(draft.id)  # another owner's draft is never shown
            finally:
                other.close()
            return ea.provenance(saved.evidence_id)

        prov = run(go, server, tmp_path, database_url=pg_schema)
    assert prov.ok and set(prov.checks) == {"population", "intervention", "finding"}
