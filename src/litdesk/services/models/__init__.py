"""The model parts of the app: the embedder and the chat backend, each made on first use
and closed once. Built by :func:`litdesk.services.app.open_app` (``app.models``) and
handed to the PDF library."""

from ._models import Models

__all__ = ["Models"]
