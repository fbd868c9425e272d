"""The offline demo workspace (issue 34): its own directory (``LITDESK_DEMO_DIR``, never
the data directory), a demo Study built from the bundled CC0 SYNERGY records through the
app's own service methods, and the demo sample as its one offline search source.

* :func:`build_demo` — (re)make the demo workspace in a given directory (tests use it);
* :func:`reset_demo` / :func:`ensure_demo` — ``litdesk demo reset`` / ``serve --demo``;
* :func:`demo_place` — where it is; :func:`demo_settings` — the settings to open it with.
"""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._build import DemoStudy, build_study
    from ._place import (
        DEMO_MARKER,
        DemoPlace,
        DemoReset,
        build_demo,
        demo_export,
        demo_place,
        demo_settings,
        ensure_demo,
        reset_demo,
        warm_sample,
    )

__all__ = [
    "DEMO_MARKER",
    "DemoPlace",
    "DemoReset",
    "DemoStudy",
    "build_demo",
    "build_study",
    "demo_export",
    "demo_place",
    "demo_settings",
    "ensure_demo",
    "reset_demo",
    "warm_sample",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
