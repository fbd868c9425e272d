"""Cache and coalescing hold across processes sharing the store (SQLite and PostgreSQL):
two processes run the same search at once; one sends the request, the other waits and
receives a reused copy."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from tests import _fork
from tests._store_template import pg_schema_url

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    import httpx
    from pathlib import Path
    sys.path.insert(0, {helpers!r})
    from _fused_helpers import body_for, fused
    from litdesk import Settings
    from litdesk.adapters.store import open_store
    from litdesk.services.search import make_definition

    url, owner, counter = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    settings = Settings(data_dir=Path(sys.argv[4]), database_url=url, owner_daily_requests=10000)
    store = open_store(settings)

    async def slow(request):
        with counter.open("a") as fh:
            fh.write("call\\n")
        await asyncio.sleep(1.5)
        return httpx.Response(200, content=body_for(request))

    async def go():
        transport, fs = fused(settings, store, slow, owner=owner)
        async with transport:
            return await fs.search(make_definition("malaria", providers=["europepmc"]))

    run = asyncio.run(go())
    store.dispose()
    print(json.dumps({{"id": run.id, "reuse": run.reuse, "from": run.reused_from,
                      "hits": [h.paper.id for h in run.hits]}}))
    """
)


def _race(url: str, tmp_path: Path) -> tuple[list[dict], int]:
    code = CHILD.format(helpers=str(Path(__file__).parent))
    counter = tmp_path / "calls.txt"
    owner = "owner-" + uuid.uuid4().hex[:8]
    # migrate once so the children only race on the search
    from litdesk.adapters.store import open_store

    open_store(url).dispose()
    # two real processes (forked from the tests' warmed interpreter, tests/_fork.py: what
    # is tested is their race on one store, not their start-up)
    procs = [
        _fork.popen(
            [sys.executable, "-c", code, url, owner, str(counter), str(tmp_path / "data")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr[-2000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    calls = counter.read_text().count("call") if counter.exists() else 0
    return out, calls


def _check(results: list[dict], calls: int) -> None:
    assert calls == 1
    fresh = [r for r in results if r["reuse"] is None]
    reused = [r for r in results if r["reuse"] is not None]
    assert len(fresh) == 1 and len(reused) == 1
    assert reused[0]["reuse"] in ("coalesced", "cache")
    assert reused[0]["from"] == fresh[0]["id"] and reused[0]["id"] != fresh[0]["id"]
    assert reused[0]["hits"] == fresh[0]["hits"] == ["MED-111", "MED-222"]


@pytest.mark.slow
def test_two_processes_sqlite(tmp_path, tmp_settings):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    _check(*_race(url, tmp_path))


@pytest.mark.slow
@pytest.mark.postgres
def test_two_processes_postgres(tmp_path, tmp_settings, pg_template):
    with pg_template.schema_at_head() as schema:  # a fresh schema: never the shared public one
        _check(*_race(pg_schema_url(pg_template.base_url, schema), tmp_path))
