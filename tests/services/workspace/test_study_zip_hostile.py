"""Hostile Study ZIPs (issue 13, class 3): corrupt, truncated, encrypted, bit-flipped,
compression and JSON bombs, unsafe names — each ends as StudyImportRefused (exit 2) within
bounded memory, and nothing is stored."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import struct
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests import _fork
from tests._store_template import ensure_sqlite_at_head

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import StudyImportRefused, Workspace, export_study, import_study
from litdesk.services.workspace import _archive as archive


def _at_head(database: Path) -> str:
    """The URL of a store at ``database`` at the newest migration (a copy of the process's
    migrated template)."""
    url = f"sqlite:///{database}"
    ensure_sqlite_at_head(url)
    return url


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real export of a small Study (papers, a note, evidence)."""
    folder = tmp_path_factory.mktemp("src")
    store = open_store(_at_head(folder / "litdesk.sqlite3"))
    try:
        ws = Workspace(store)
        ws.create_study("Malaria", "bed nets")
        p = ws.save_paper(
            make_paper(pmid="21", doi="10.5555/m.1", title="Nets", abstract="Nets cut cases."),
            study="Malaria",
        ).paper
        ws.save_paper(make_paper(doi="10.5555/m.2", title="Other"), study="Malaria")
        ws.add_note(p.id, highlight="cut cases", comment="claim", study="Malaria")
        ws.add_evidence(
            p.id,
            finding="fewer cases",
            passage="Nets cut cases",
            source="abstract",
            study="Malaria",
        )
        return export_study(ws, "Malaria")
    finally:
        store.dispose()


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Workspace]:
    store = open_store(_at_head(tmp_path / "dst" / "litdesk.sqlite3"))
    try:
        yield Workspace(store)
    finally:
        store.dispose()


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _zip(members: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """An archive with a manifest that lists every member with its true sha256."""
    body = dict(members)
    manifest = json.loads(body.pop("manifest.json", b"{}") or b"{}")
    if not isinstance(manifest, dict) or "kind" not in manifest:
        manifest = {"version": 1, "kind": "litdesk-study"}
    manifest["members"] = [
        {"path": n, "bytes": len(b), "sha256": "sha256:" + hashlib.sha256(b).hexdigest()}
        for n, b in sorted(body.items())
    ]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for n, b in sorted(body.items()):
            zf.writestr(n, b)
        zf.writestr("manifest.json", json.dumps(manifest).encode())
    return buf.getvalue()


def _refused(ws: Workspace, data: bytes) -> StudyImportRefused:
    with pytest.raises(StudyImportRefused) as info:
        import_study(ws, data)
    assert info.value.exit_code == 2
    assert ws.studies() == [] and ws.papers() == []
    return info.value


def test_the_export_itself_imports(target: Workspace, export: bytes) -> None:
    assert import_study(target, export).papers == 2
    assert import_study(target, _zip(_members(export))).papers == 2  # the test rebuilder


def test_truncated_archives_refused(target: Workspace, export: bytes) -> None:
    for cut in sorted({1, 4, 22, 30, *range(0, len(export), max(1, len(export) // 60))}):
        err = _refused(target, export[:cut])
        assert err.code in {"malformed", "study_import_refused"}


def test_bit_flips_end_in_success_or_refusal(target: Workspace, export: bytes) -> None:
    """Every byte region (local headers, deflate streams, central directory) gets flips;
    each import succeeds or is refused — no other exception escapes."""
    rng = random.Random(13)
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(250):
        data = bytearray(export)
        for _ in range(rng.choice((1, 1, 2, 8))):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        try:
            import_study(target, bytes(data))
            outcomes["ok"] += 1
        except StudyImportRefused:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 150  # digests and CRCs catch nearly every flip


def _set_flag(data: bytes, name: bytes, bit: int) -> bytes:
    """Set a general-purpose flag bit of ``name`` in its local and central headers."""
    out = bytearray(data)
    for sig, flag_at, name_len_at, name_at in (
        (b"PK\x03\x04", 6, 26, 30),
        (b"PK\x01\x02", 8, 28, 46),
    ):
        start = 0
        while (i := out.find(sig, start)) >= 0:
            (n,) = struct.unpack_from("<H", out, i + name_len_at)
            if bytes(out[i + name_at : i + name_at + n]) == name:
                (flags,) = struct.unpack_from("<H", out, i + flag_at)
                struct.pack_into("<H", out, i + flag_at, flags | bit)
            start = i + 4
    return bytes(out)


def _set_method(data: bytes, name: bytes, method: int) -> bytes:
    out = bytearray(data)
    for sig, method_at, name_len_at, name_at in (
        (b"PK\x03\x04", 8, 26, 30),
        (b"PK\x01\x02", 10, 28, 46),
    ):
        start = 0
        while (i := out.find(sig, start)) >= 0:
            (n,) = struct.unpack_from("<H", out, i + name_len_at)
            if bytes(out[i + name_at : i + name_at + n]) == name:
                struct.pack_into("<H", out, i + method_at, method)
            start = i + 4
    return bytes(out)


def test_encrypted_member_refused(target: Workspace, export: bytes) -> None:
    """zipfile would raise RuntimeError ('password required') on this member."""
    err = _refused(target, _set_flag(export, b"study.json", 0x1))
    assert err.code == "encrypted"


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA, 99])
def test_other_compression_methods_refused(target: Workspace, export: bytes, method: int) -> None:
    err = _refused(target, _set_method(export, b"study.json", method))
    assert err.code == "malformed"


def test_broken_deflate_stream_refused(target: Workspace, export: bytes) -> None:
    """Garbage in a member's deflate data: zlib.error (or a CRC error), never a traceback."""
    with zipfile.ZipFile(io.BytesIO(export)) as zf:
        info = zf.getinfo("study.json")
    (n, m) = struct.unpack_from("<HH", export, info.header_offset + 26)
    start = info.header_offset + 30 + n + m
    data = bytearray(export)
    data[start : start + info.compress_size] = bytes([0xFF]) * info.compress_size
    assert _refused(target, bytes(data)).code == "malformed"


def test_header_that_understates_the_size_refused(target: Workspace, export: bytes) -> None:
    """A central directory claiming fewer bytes than the stream holds: read to the claimed
    size only, then refused (CRC/size mismatch) — the claim bounds what is inflated."""
    out = bytearray(export)
    i = out.find(b"PK\x01\x02")
    while i >= 0:
        (n,) = struct.unpack_from("<H", out, i + 28)
        if bytes(out[i + 46 : i + 46 + n]) == b"study.json":
            struct.pack_into("<I", out, i + 24, 10)
        i = out.find(b"PK\x01\x02", i + 4)
    assert _refused(target, bytes(out)).code in {"malformed", "digest_mismatch"}


@pytest.mark.parametrize(
    "name",
    [
        "../study.json",
        "/etc/passwd",
        "search-runs/../../x.json",
        "imports/..\\..\\x.json",
        "C:/evil.json",
        "imports/a b.json",
        "notes/x.md",
        "search-runs/.json/../x.json",
    ],
)
def test_unsafe_member_names_refused(target: Workspace, export: bytes, name: str) -> None:
    members = _members(export)
    members[name] = b"{}"
    assert _refused(target, _zip(members)).code == "unsafe_member"


def test_zip_bomb_refused_from_the_central_directory(target: Workspace, export: bytes) -> None:
    """60 MB of spaces deflate to ~60 KB: refused on its ratio before any byte is inflated."""
    members = _members(export)
    members["notebook.md"] = b" " * 60_000_000
    data = _zip(members)
    assert len(data) < 200_000
    err = _refused(target, data)
    assert err.code == "too_large" and "bomb" in err.message


def test_member_over_its_size_limit_refused(
    target: Workspace, export: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_SMALL_MEMBER_BYTES", 1_000)
    members = _members(export)
    members["search-runs/x.json"] = b"[" + b"1," * 600 + b"1]"
    assert _refused(target, _zip(members)).code == "too_large"


def _bundle_with(export: bytes, study_json: bytes) -> bytes:
    members = _members(export)
    members["study.json"] = study_json
    return _zip(members, method=zipfile.ZIP_STORED)


def test_deep_nesting_refused(target: Workspace, export: bytes) -> None:
    err = _refused(target, _bundle_with(export, b"[" * 200_000 + b"]" * 200_000))
    assert err.code == "too_deep"
    err = _refused(target, _bundle_with(export, b'{"a":' * 100 + b"1" + b"}" * 100))
    assert err.code == "too_deep"


def test_deep_nesting_in_the_manifest_refused(target: Workspace, export: bytes) -> None:
    members = _members(export)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b"[" * 50_000 + b"]" * 50_000 if n == "manifest.json" else b)
    assert _refused(target, buf.getvalue()).code == "too_deep"


def test_huge_array_refused_before_parsing(target: Workspace, export: bytes) -> None:
    """12 MB of ``[0,0,…]`` stored (no ratio to catch): 6 M values, over the budget."""
    err = _refused(target, _bundle_with(export, b"[" + b"0," * 6_000_000 + b"0]"))
    assert err.code == "too_large" and "JSON values" in err.message


def test_value_budget_is_shared_by_all_members(target: Workspace, export: bytes) -> None:
    members = _members(export)
    budget = archive.JsonBudget(values=10_000)
    archive.load_json(b"[" + b"0," * 6_000 + b"0]", "a", budget)
    with pytest.raises(StudyImportRefused):
        archive.load_json(b"[" + b"0," * 6_000 + b"0]", "b", budget)
    assert import_study(target, _zip(members)).papers == 2  # a real export fits easily


def test_strings_do_not_count_as_structure() -> None:
    budget = archive.JsonBudget(values=10)
    text = json.dumps({"abstract": "[[[[,,,,{{{{" * 10_000, "x": ['a "quoted" [', "\\"]})
    assert archive.load_json(text.encode(), "s", budget)["x"][1] == "\\"


def test_runtime_limits_are_refusals(target: Workspace, export: bytes) -> None:
    """A 5,000-digit number (Python's int-digit limit) and invalid UTF-8 in study.json."""
    assert _refused(target, _bundle_with(export, b'{"version": ' + b"9" * 5000 + b"}")).code == (
        "malformed"
    )
    assert _refused(target, _bundle_with(export, b'{"version": 1, "x": "\xff"}')).code == (
        "malformed"
    )


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(min_value=0), st.integers(min_value=0, max_value=255)), max_size=6
    ),
    st.integers(min_value=0),
)
def test_mutated_exports_never_crash(target: Workspace, export: bytes, edits, cut) -> None:
    data = bytearray(export)
    for pos, value in edits:
        data[pos % len(data)] = value
    data = data[: len(data) - cut % 64] if cut % 3 == 0 else data
    with contextlib.suppress(StudyImportRefused):
        import_study(target, bytes(data))


BOMB_SCRIPT = textwrap.dedent(
    """
    import hashlib, io, json, resource, sys, zipfile
    # the peak RSS from here on: a process forked from a larger one (tests/_fork.py) starts
    # with that one's peak (Linux: "5" resets it to the current RSS; a fresh interpreter's
    # is its start-up's, already the current)
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass
    from litdesk.adapters.store import open_store
    from litdesk.services.workspace import StudyImportRefused, Workspace, import_study

    kind, db = sys.argv[1], sys.argv[2]
    if kind == "deep":
        study, method = b"[" * 30_000_000 + b"]" * 30_000_000, zipfile.ZIP_DEFLATED
    elif kind == "wide":
        study, method = b"[" + b"[]," * 20_000_000 + b"[]]", zipfile.ZIP_DEFLATED
    else:  # stored, so no compression ratio gives it away: only the value budget
        study, method = b"[" + b"{}," * 30_000_000 + b"{}]", zipfile.ZIP_STORED
    digest = "sha256:" + hashlib.sha256(study).hexdigest()
    manifest = {"version": 1, "kind": "litdesk-study", "members": [
        {"path": "study.json", "bytes": len(study), "sha256": digest}]}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        zf.writestr("study.json", study)
        zf.writestr("manifest.json", json.dumps(manifest))
    data = buf.getvalue()
    del study
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    ws = Workspace(open_store(f"sqlite:///{db}"))
    try:
        import_study(ws, data)
        code = "imported"
    except StudyImportRefused as exc:
        code = exc.code
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"zip_bytes": len(data), "code": code, "base_kib": base, "peak_kib": peak}))
    """
)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("kind", ["deep", "wide", "stored"])
def test_bombs_stay_within_bounded_memory(tmp_path: Path, kind: str) -> None:
    """Measured in a subprocess: the peak RSS while importing the bomb stays within 400 MB
    above what building it cost (unbounded, such archives drive the process past 3 GB).
    The deflated bombs are ~60-120 KB archives. The subprocess is forked from the tests'
    warmed interpreter (tests/_fork.py; its peak RSS reset at its start): what is measured
    is the import's growth, not a fresh interpreter's imports."""
    proc = _fork.run(
        [sys.executable, "-c", BOMB_SCRIPT, kind, str(tmp_path / "x.sqlite3")],
        capture_output=True,
        text=True,
        timeout=230,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    print(kind, out)  # the measured figures, shown with -s
    assert out["code"] in {"too_large", "too_deep"}
    assert out["peak_kib"] - out["base_kib"] < 400 * 1024, out
    if kind != "stored":
        assert out["zip_bytes"] < 200_000
