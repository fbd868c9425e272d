"""Fixtures shared by the service tests: ``pg_schema`` (a fresh PostgreSQL schema per
test; other engineers use the same database at the same time)."""

from tests.adapters.store.conftest import pg_schema

__all__ = ["pg_schema"]
