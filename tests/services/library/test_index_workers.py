"""How many reader processes a library index uses: the ``library_index_workers`` setting
(default 2; the suite sets 1, see tests/conftest.py), unless a caller names its own."""

from __future__ import annotations

from litdesk import Settings
from litdesk.services.app import open_app_sync


def test_the_setting_names_the_reader_processes(tmp_settings: Settings) -> None:
    assert Settings.model_fields["library_index_workers"].default == 2
    assert tmp_settings.library_index_workers == 1  # the suite's own (conftest)
    with open_app_sync(tmp_settings.model_copy(update={"library_index_workers": 3})) as app:
        assert app.pdfs.workers == 3
        lib = app.make_library()
        own = app.make_library(workers=1)
        try:
            assert lib.workers == 3 and own.workers == 1
        finally:
            lib.close()
            own.close()
