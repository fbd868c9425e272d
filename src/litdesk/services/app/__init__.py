"""The application object: :func:`open_app` builds every part of the service layer once
(store, provider transport, models, PDF library, job queue and runners, live searches,
and one area per capability) and closes them once; both faces, the benches and the tests open
it the same way."""

from ._app import App, open_app, open_app_sync
from ._library import app_library

__all__ = ["App", "app_library", "open_app", "open_app_sync"]
