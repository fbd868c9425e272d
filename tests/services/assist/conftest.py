"""Fixtures of the AI-assistance service tests: PostgreSQL schemas and scripted model
servers of both wire protocols."""

from tests._model_servers import model_server_fixture
from tests.adapters.store.conftest import pg_schema

__all__ = ["model_server_fixture", "pg_schema"]
