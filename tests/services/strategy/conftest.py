"""Fixtures of these service tests: PostgreSQL schemas and scripted model servers of both
wire protocols (from the assistance foundation's test helpers)."""

from tests._model_servers import model_server_fixture
from tests.adapters.store.conftest import pg_schema

__all__ = ["model_server_fixture", "pg_schema"]
