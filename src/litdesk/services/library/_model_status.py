"""The model status of the PDF library: which backend and models the settings name, and,
when asked, whether the embedder and the chat model are reachable; when one is not, the
options are named (``ollama pull <model>``, an Anthropic key, extractive mode)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from litdesk._settings import Settings
from litdesk.adapters.embeddings import embedder_name, is_local_embedder
from litdesk.adapters.llm import probe_ollama, probe_openai

__all__ = ["ModelCheck", "ModelStatus", "model_status"]

EXTRACTIVE = (
    "extractive mode: set LITDESK_LLM_BACKEND=none; answers are the cited excerpts' "
    "leading sentences, and reports cannot write a synthesis"
)
ANTHROPIC = (
    "an Anthropic key: set LITDESK_LLM_BACKEND=anthropic, LITDESK_ANTHROPIC_API_KEY and "
    "LITDESK_CHAT_MODEL"
)


@dataclass(frozen=True, slots=True)
class ModelCheck:
    """One role (embedder, chat, generation): what is configured and what a check found."""

    role: str
    backend: str
    model: str | None
    #: ``None``: not checked (nothing to reach, or no check asked)
    reachable: bool | None
    ready: bool | None
    detail: str
    options: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "backend": self.backend,
            "model": self.model,
            "reachable": self.reachable,
            "ready": self.ready,
            "detail": self.detail,
            "options": self.options,
        }


@dataclass(frozen=True, slots=True)
class ModelStatus:
    checked: bool
    roles: list[ModelCheck]

    @property
    def ready(self) -> bool:
        return all(r.ready is not False for r in self.roles)

    def to_dict(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "ready": self.ready,
            "roles": [r.to_dict() for r in self.roles],
        }


def _ollama_root(settings: Settings) -> str:
    return settings.openai_base_url.rstrip("/").removesuffix("/v1")


def _embedder(settings: Settings, check: bool) -> ModelCheck:
    spec = settings.embedder.strip()
    kind, _, model = spec.partition(":")
    if is_local_embedder(spec):
        return ModelCheck(
            "embedder", spec, embedder_name(spec), None, True,
            "offline model shipped with litdesk (nothing to reach)",
        )  # fmt: skip
    if kind == "sentence-transformers":
        return ModelCheck(
            "embedder", kind, model or None, None, None,
            "a local sentence-transformers model (loaded on first use)",
        )  # fmt: skip
    if not check:
        return ModelCheck("embedder", "ollama", model or None, None, None, "not checked yet")
    probe = probe_ollama(_ollama_root(settings), model)
    options: list[str] = []
    if not probe.reachable:
        options = [
            f"start Ollama at {_ollama_root(settings)}, then `ollama pull {model}`",
            "or use the offline embedder: LITDESK_EMBEDDER=wordllama+use-m3",
        ]
    elif not probe.has_model:
        options = [f"ollama pull {model}", "or LITDESK_EMBEDDER=wordllama+use-m3 (offline)"]
    return ModelCheck(
        "embedder", "ollama", model, probe.reachable, probe.reachable and probe.has_model,
        f"Ollama at {_ollama_root(settings)}: {probe.detail}", options,
    )  # fmt: skip


def _chat(settings: Settings, role: str, model: str | None, check: bool) -> ModelCheck:
    backend = settings.llm_backend
    if backend == "none":
        return ModelCheck(
            role, "none", "extractive", None, True,
            "no model: answers are extractive (the cited excerpts' leading sentences)",
        )  # fmt: skip
    if not model:
        return ModelCheck(
            role, backend, None, None, False, "no model is named (LITDESK_CHAT_MODEL)",
            ["set LITDESK_CHAT_MODEL", EXTRACTIVE],
        )  # fmt: skip
    if backend == "anthropic":
        has_key = settings.anthropic_api_key is not None
        return ModelCheck(
            role, backend, model, None, has_key,
            "Anthropic API key set (sent only to api.anthropic.com; not called by this check)"
            if has_key
            else "no Anthropic API key is set",
            [] if has_key else [ANTHROPIC, EXTRACTIVE],
        )  # fmt: skip
    if not check:
        return ModelCheck(role, backend, model, None, None, "not checked yet")
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    probe = probe_openai(settings.openai_base_url, model, api_key=key)
    options: list[str] = []
    if not probe.reachable or not probe.has_model:
        options = [f"ollama pull {model} (with a local Ollama)", ANTHROPIC, EXTRACTIVE]
    return ModelCheck(
        role, backend, model, probe.reachable, probe.reachable and probe.has_model,
        f"{settings.openai_base_url}: {probe.detail}", options,
    )  # fmt: skip


def model_status(settings: Settings, *, check: bool) -> ModelStatus:
    """The configured models; with ``check``, each server is asked once (a few seconds
    at most each)."""
    roles = [_embedder(settings, check), _chat(settings, "chat", settings.chat_model, check)]
    generation = settings.generation_model
    if generation and generation != settings.chat_model:
        roles.append(_chat(settings, "generation", generation, check))
    return ModelStatus(check, roles)
