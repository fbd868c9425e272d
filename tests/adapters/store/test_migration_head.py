"""The store tells the newest schema revision from the migration files' names (so that a
process whose database is up to date never imports Alembic): the names must be one
numbered chain whose last file is Alembic's own head."""

from __future__ import annotations

import subprocess
import sys

import pytest
from alembic.script import ScriptDirectory

from litdesk.adapters.store._engine import MIGRATIONS_DIR, _alembic_config, _script_head

#: the tests of the migrations migrate their stores from zero (no template copy)
pytestmark = pytest.mark.no_store_template


def test_the_newest_file_is_alembic_s_head_and_the_chain_is_linear() -> None:
    script = ScriptDirectory.from_config(_alembic_config())
    assert script.get_heads() == [_script_head()]
    files = sorted((MIGRATIONS_DIR / "versions").glob("[0-9]*.py"))
    by_file = {r.path: r for r in script.walk_revisions()}
    chain = [by_file[str(f)] for f in files]  # every file is a revision
    assert len(chain) == len(by_file)
    for before, after in zip(chain, chain[1:], strict=False):  # numbered in chain order
        assert after.down_revision == before.revision


def test_an_up_to_date_store_opens_without_importing_alembic(tmp_path) -> None:
    from litdesk import Settings
    from litdesk.adapters.store import open_store

    open_store(Settings(data_dir=tmp_path)).dispose()  # migrated once, here
    code = (
        "import sys\n"
        "from litdesk import Settings\n"
        "from litdesk.adapters.store import open_store\n"
        f"store = open_store(Settings(data_dir={str(tmp_path)!r}))\n"
        "print(store.revision()); store.dispose()\n"
        "print('alembic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    revision, imported = out.stdout.split()
    assert revision == _script_head() and imported == "False"
