"""The application object: :func:`open_app` builds every part of the service layer once
(store, provider transport, models, PDF library, job queue and runners, live searches,
desks, chat, reports) and closes them once; both faces, the benches and the tests open
it the same way."""

from ._app import MAX_DESKS, App, open_app, open_app_sync
from ._library import app_library

__all__ = ["MAX_DESKS", "App", "app_library", "open_app", "open_app_sync"]
