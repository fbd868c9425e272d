"""The web face's library services on their own: the viewer's page cache (bounded,
dropped when a PDF changes), the paper chat's session state (kept on disk under the
token's hash, bounded), and the answer-part parser (Hypothesis)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.services.app import app_library
from litdesk.services.library import (
    ChatQuestionRequest,
    ChatScopeRequest,
    ChatService,
    Library,
    PdfNotInLibrary,
    PdfViewer,
)
from litdesk.services.library._chat import MAX_ROUNDS, ModelUnreachable, answer_parts


@pytest.fixture
def lib(
    tmp_settings: Settings, tmp_path: Path, wordllama: WordLlamaEmbedder,
    make_pdf: Callable[[Path, list[str]], Path],
) -> Library:  # fmt: skip
    folder = tmp_path / "pdfs"
    make_pdf(folder / "a.pdf", ["Water level cameras on bridges. " * 20, "Second page. " * 30])
    make_pdf(folder / "b.pdf", ["Heat stress in wheat reduced yield. " * 20])
    settings = tmp_settings.model_copy(update={"library_dirs": [folder]})
    return app_library(settings, embedder=wordllama)


def _sha(lib: Library, name: str) -> str:
    from litdesk.services.library import hash_files

    files = lib.corpus().select([name])
    return hash_files(lib.catalogue, files)[files[0].path]


def test_page_cache_is_bounded_and_dropped_when_the_pdf_changes(lib: Library) -> None:
    a = _sha(lib, "a.pdf")
    probe = PdfViewer(lib)
    one = len(probe.page_image(a, 1).data)
    viewer = PdfViewer(lib, cache_bytes=int(one * 2.5))  # room for two pages
    first = viewer.page_image(a, 1)
    viewer.page_image(a, 1)
    assert viewer.renders == 1
    viewer.page_image(a, 2)
    viewer.page_image(a, 1, 50)
    viewer.page_image(a, 1, 150)  # a bigger image: the oldest ones are evicted
    assert viewer._used <= viewer.cache_bytes
    viewer.page_image(a, 1)
    assert viewer.renders == 5  # rendered again after its eviction
    assert viewer.page_image(a, 1).data == first.data
    # a PDF rewritten with other content is no longer served under its old hash
    path = lib.corpus().select(["a.pdf"])[0].path
    path.write_bytes(path.read_bytes() + b"\n%changed\n")
    with pytest.raises(PdfNotInLibrary):
        viewer.page_image(a, 1)
    assert not any(k[0] == a for k in viewer._pages)


def test_chat_session_is_kept_on_disk_under_the_tokens_hash(lib: Library) -> None:
    token = secrets.token_urlsafe(32)
    chat = ChatService(lib)
    assert chat.session(token, owner=LOCAL_OWNER).whole_library is True
    chat.set_scope(ChatScopeRequest(token, ("a.pdf",), False), owner=LOCAL_OWNER)
    card = chat.ask(
        ChatQuestionRequest(token, "How is the water level measured?"), owner=LOCAL_OWNER
    )
    assert card.number == 1 and card.data["model"] == "extractive"
    files = list(chat.folder.rglob("*.json"))
    assert len(files) == 2 and all(token not in str(f) for f in files)
    assert all(token not in f.read_text(encoding="utf-8") for f in files)
    again = ChatService(lib).session(token, owner=LOCAL_OWNER)  # a restarted server reads it back
    assert again.papers == ("a.pdf",) and [r.number for r in again.rounds] == [1]
    assert ChatService(lib).session(secrets.token_urlsafe(32), owner=LOCAL_OWNER).rounds == ()
    with pytest.raises(InputError, match="malformed"):
        chat.session("../../etc/passwd", owner=LOCAL_OWNER)


def test_chat_session_belongs_to_its_account_in_team_mode(lib: Library) -> None:
    token = secrets.token_urlsafe(32)
    chat = ChatService(lib)
    chat.set_scope(ChatScopeRequest(token, ("a.pdf",), False), owner="acc-ana")
    assert chat.session(token, owner="acc-ana").papers == ("a.pdf",)
    # the same token (a cookie left in a browser) opens another session for another account
    assert (
        chat.session(token, owner="acc-bob").papers == ()
        and chat.session(token, owner="acc-bob").whole_library is True
    )
    assert chat.session(token, owner=LOCAL_OWNER).papers == ()  # and for the single user
    assert (
        len(
            {
                chat.session_id(token, owner=LOCAL_OWNER),
                chat.session_id(token, owner="acc-ana"),
                chat.session_id(token, owner="acc-bob"),
            }
        )
        == 3
    )


def test_chat_rounds_are_bounded(lib: Library) -> None:
    token = secrets.token_urlsafe(32)
    chat = ChatService(lib)
    for _ in range(3):
        chat.ask(ChatQuestionRequest(token, "How is the water level measured?"), owner=LOCAL_OWNER)
    sid = chat.session_id(token, owner=LOCAL_OWNER)
    state = chat._dir(sid) / "state.json"
    doc = json.loads(state.read_text(encoding="utf-8"))
    doc["rounds"] = [
        {"number": n, "asked_at": "t", "question": f"q{n}"} for n in range(1, MAX_ROUNDS + 1)
    ]  # as if 200 rounds had been asked (rounds 1-3 have their cards)
    state.write_text(json.dumps(doc), encoding="utf-8")
    chat.ask(ChatQuestionRequest(token, "How is the water level measured?"), owner=LOCAL_OWNER)
    index = chat.session(token, owner=LOCAL_OWNER).index
    assert len(index) == MAX_ROUNDS and index[-1]["number"] == MAX_ROUNDS + 1
    assert index[0]["number"] == 2
    assert not (chat._dir(sid) / "round-1.json").exists()  # the oldest card is gone
    assert (chat._dir(sid) / "round-2.json").exists()


@given(
    st.text(alphabet=st.sampled_from("ab [1]2]3[x .\n"), max_size=60),
    st.sets(st.sampled_from(["1", "2", "3"])),
)
def test_answer_parts_keep_every_character(body: str, labels: set[str]) -> None:
    parts = answer_parts(body, labels)
    rebuilt = "".join(p["text"] if "text" in p else f"[{p['label']}]" for p in parts)
    assert rebuilt == body
    assert all(p["label"] in labels for p in parts if "label" in p)
    assert all(p["text"] for p in parts if "text" in p)


def test_an_unreachable_model_names_the_options(lib: Library, wordllama: WordLlamaEmbedder) -> None:
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = lib.settings.model_copy(
        update={
            "llm_backend": "openai",
            "chat_model": "qwen3:4b",
            "openai_base_url": f"http://127.0.0.1:{port}/v1",
        }
    )
    chat = ChatService(app_library(settings, embedder=wordllama))
    with pytest.raises(ModelUnreachable) as caught:
        chat.ask(
            ChatQuestionRequest(secrets.token_urlsafe(32), "How is the water level measured?"),
            owner=LOCAL_OWNER,
        )
    message = caught.value.message
    assert "model server call failed" in message and "`ollama pull qwen3:4b`" in message
    assert "LITDESK_ANTHROPIC_API_KEY" in message and "LITDESK_LLM_BACKEND=none" in message


def test_while_a_background_job_indexes_a_question_uses_the_indexed_files_only(
    lib: Library,
) -> None:
    token = secrets.token_urlsafe(32)
    busy = ChatService(lib, indexing=lambda: True)
    card = busy.ask(
        ChatQuestionRequest(token, "How is the water level measured?"), owner=LOCAL_OWNER
    )
    assert any("not indexed yet" in w for w in card.data["warnings"]), card.data["warnings"]
    states = {r["file"]: r["indexed"] for r in lib.file_states(lib.corpus().files)}
    assert states == {"a.pdf": False, "b.pdf": False}  # nothing indexed beside the job
    assert card.data["citations"] == []
    idle = ChatService(lib, indexing=lambda: False)
    again = idle.ask(
        ChatQuestionRequest(token, "How is the water level measured?"), owner=LOCAL_OWNER
    )
    assert not any("not indexed yet" in w for w in again.data["warnings"])
    assert again.data["citations"] or again.data["abstained"]
    assert all(r["indexed"] for r in lib.file_states(lib.corpus().files))


def test_a_chat_scope_tries_adoption_and_the_card_discloses_it(
    tmp_settings: Settings, tmp_path: Path, wordllama: WordLlamaEmbedder,
    make_pdf: Callable[[Path, list[str]], Path],
) -> None:  # fmt: skip
    from litdesk.core.records import make_paper

    title = "Water Level Cameras on Bridges"
    folder = tmp_path / "pdfs"
    make_pdf(folder / "c.pdf", [f"{title}\ndoi: 10.5555/cams.2020.7\n" + "Cameras. " * 40])
    make_pdf(folder / "d.pdf", ["Heat stress in wheat, doi: 10.5555/wheat.9. " * 20])
    settings = tmp_settings.model_copy(update={"library_dirs": [folder]})
    lib = app_library(settings, embedder=wordllama)
    calls: list[tuple[str, str, str]] = []

    def lookups(owner: str):  # type: ignore[no-untyped-def]
        def lookup(ns: str, value: str):  # type: ignore[no-untyped-def]
            calls.append((owner, ns, value))
            return make_paper(title=title, doi=value)

        return lookup

    chat = ChatService(lib, lookup=lookups)
    token = secrets.token_urlsafe(32)
    chat.set_scope(ChatScopeRequest(token, ("c.pdf",), False), owner="acc-ana")
    card = chat.ask(ChatQuestionRequest(token, "How is the water level read?"), owner="acc-ana")
    assert calls == [("acc-ana", "doi", "10.5555/cams.2020.7")]  # only the scope's PDF
    said = [w for w in card.data["warnings"] if "metadata looked up" in w]
    assert len(said) == 1 and "adopted: c.pdf" in said[0]
    again = chat.ask(ChatQuestionRequest(token, "Which bridges?"), owner="acc-ana")
    assert len(calls) == 1 and not any("metadata looked up" in w for w in again.data["warnings"])
    lib.close()
