"""Alembic migrations of the store (run programmatically by ``open_store``)."""
