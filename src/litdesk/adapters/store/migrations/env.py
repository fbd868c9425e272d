"""Alembic environment: litdesk always passes an open connection (see ``_engine.migrate``)."""

from __future__ import annotations

from alembic import context

from litdesk.adapters.store._schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - litdesk never runs alembic without a connection
    raise RuntimeError("litdesk migrations run through litdesk.adapters.store.open_store")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
