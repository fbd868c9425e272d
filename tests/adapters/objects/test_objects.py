"""The object-store seam on both backends: the local folder and S3 (moto's server mode on
loopback, real HTTP): round trips, a missing key, the byte limit, unsafe keys, listing by
prefix; the S3 backend's errors without credentials or server text, no redirect followed,
and its settings."""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._object_server import ACCESS_KEY, SECRET_KEY, S3Server, s3_server

from litdesk import Settings
from litdesk._errors import ConfigError, InputError
from litdesk._settings import SettingsError
from litdesk.adapters.objects import (
    LocalObjects,
    ObjectMissing,
    ObjectStore,
    ObjectStoreError,
    ObjectTooLarge,
    S3Objects,
    open_objects,
)

LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def _s3(server: S3Server, prefix: str, **kw: object) -> S3Objects:
    args: dict[str, object] = {
        "bucket": server.bucket, "prefix": prefix, "endpoint": server.endpoint,
        "region": "us-east-1", "access_key": ACCESS_KEY, "secret_key": SECRET_KEY,
        "timeout": 5.0, "max_bytes": LIMIT,
    } | kw  # fmt: skip
    return S3Objects(**args)  # type: ignore[arg-type]


@pytest.fixture(params=["local", "s3"])
def objects(request: pytest.FixtureRequest, tmp_path: Path, s3: S3Server) -> Iterator[ObjectStore]:
    store: ObjectStore
    if request.param == "local":
        store = LocalObjects(tmp_path / "objects", max_bytes=LIMIT)
    else:  # a prefix per test: the module's server is shared
        store = _s3(s3, f"t-{request.node.name.replace('[', '-').rstrip(']')}/")
    try:
        yield store
    finally:
        store.close()


def test_round_trip_list_and_delete(objects: ObjectStore) -> None:
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 40
    objects.put("library/inbox/a paper.pdf", pdf)
    objects.put("library/inbox/b.pdf", b"%PDF-b")
    objects.put("library/vectors/x.npy", b"\x93NUMPY")
    objects.put("library/inbox-old/c.pdf", b"other folder")
    assert objects.get("library/inbox/a paper.pdf") == pdf
    listed = objects.list("library/inbox/")
    assert [(o.key, o.size) for o in listed] == [
        ("library/inbox/a paper.pdf", len(pdf)),
        ("library/inbox/b.pdf", 6),
    ]
    assert len(objects.list()) == 4
    objects.put("library/inbox/b.pdf", b"%PDF-replaced")
    assert objects.get("library/inbox/b.pdf") == b"%PDF-replaced"
    objects.delete("library/inbox/b.pdf")
    objects.delete("library/inbox/never-there.pdf")  # nothing there: no error
    assert [o.key for o in objects.list("library/inbox/")] == ["library/inbox/a paper.pdf"]


def test_missing_key_is_a_typed_error(objects: ObjectStore) -> None:
    with pytest.raises(ObjectMissing) as got:
        objects.get("library/inbox/absent.pdf")
    assert got.value.code == "object_missing" and "absent.pdf" in got.value.message


def test_byte_limit_on_put_and_get(objects: ObjectStore, tmp_path: Path, s3: S3Server) -> None:
    with pytest.raises(ObjectTooLarge):
        objects.put("big.bin", b"x" * (LIMIT + 1))
    assert objects.list("big") == []  # nothing was stored
    objects.put("edge.bin", b"x" * LIMIT)
    assert len(objects.get("edge.bin")) == LIMIT
    # an object put by a store with a larger limit is refused by this one on reading
    if isinstance(objects, LocalObjects):
        bigger: ObjectStore = LocalObjects(objects.root, max_bytes=LIMIT * 2)
    else:
        assert isinstance(objects, S3Objects)
        bigger = _s3(s3, objects.prefix, max_bytes=LIMIT * 2)
    bigger.put("large.bin", b"y" * (LIMIT + 10))
    with pytest.raises(ObjectTooLarge):
        objects.get("large.bin")


UNSAFE = ["", "../escape.pdf", "a/../../b", "/abs.pdf", "a//b", "a\\b", "a/\x00b", "./a", "a/"]


def test_unsafe_keys_are_refused(objects: ObjectStore) -> None:
    for key in UNSAFE:
        with pytest.raises(InputError) as got:
            objects.put(key, b"data")
        assert got.value.code == "object_key", key
        with pytest.raises(InputError):
            objects.get(key)
    assert objects.list() == []


def test_local_objects_stay_under_their_root(tmp_path: Path) -> None:
    store = LocalObjects(tmp_path / "root", max_bytes=LIMIT)
    store.put("a/b/c.txt", b"c")
    assert (tmp_path / "root" / "a" / "b" / "c.txt").read_bytes() == b"c"
    assert [p.name for p in tmp_path.iterdir()] == ["root"]
    assert not list((tmp_path / "root" / "a" / "b").glob(".*"))  # no temporary left


def test_s3_errors_name_no_secret_and_no_server_text(
    s3: S3Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong_bucket = _s3(s3, "", bucket="no-such-bucket")
    with pytest.raises(ObjectStoreError) as got:
        wrong_bucket.put("a.pdf", b"%PDF-")
    wrong_bucket.close()
    message = got.value.message
    assert "NoSuchBucket" in message and ACCESS_KEY not in message and SECRET_KEY not in message
    assert SECRET_KEY not in caplog.text


class _Redirector(http.server.BaseHTTPRequestHandler):
    """Answers every request with a 301/307 to another loopback server."""

    target = ""

    def _go(self) -> None:
        self.send_response(307)
        self.send_header("Location", self.target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_PUT = do_HEAD = do_POST = _go

    def log_message(self, *args: object) -> None:
        """Quiet."""


class _Counter(http.server.BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []

    def _note(self) -> None:
        type(self).seen.append(dict(self.headers))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_PUT = do_HEAD = do_POST = _note

    def log_message(self, *args: object) -> None:
        """Quiet."""


def test_s3_follows_no_redirect_and_sends_credentials_nowhere_else() -> None:
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    _Redirector.target = f"http://127.0.0.1:{other.server_address[1]}"
    first = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Redirector)
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (other, first)]
    for t in threads:
        t.start()
    try:
        store = S3Objects(
            bucket="b", prefix="", endpoint=f"http://127.0.0.1:{first.server_address[1]}",
            region="us-east-1", access_key=ACCESS_KEY, secret_key=SECRET_KEY, timeout=5.0,
            max_bytes=LIMIT,
        )  # fmt: skip
        with pytest.raises(ObjectStoreError):
            store.get("a.pdf")
        with pytest.raises(ObjectStoreError):
            store.put("a.pdf", b"%PDF-")
        store.close()
        assert _Counter.seen == []  # the redirect's target was never asked
    finally:
        for s in (first, other):
            s.shutdown()
            s.server_close()


def test_settings_build_the_backend(tmp_path: Path, s3: S3Server) -> None:
    default = open_objects(Settings(data_dir=tmp_path / "data"))
    assert isinstance(default, LocalObjects) and default.root == tmp_path / "data"
    folder = open_objects(Settings(object_store=f"file://{tmp_path}/shared"))
    assert isinstance(folder, LocalObjects) and folder.root == tmp_path / "shared"
    with pytest.raises(ConfigError) as got:
        open_objects(Settings(object_store="s3://bucket/p"))
    assert got.value.code == "object_store_credentials"
    made = open_objects(Settings(**s3.settings("via-settings")))  # type: ignore[arg-type]
    assert isinstance(made, S3Objects) and made.prefix == "via-settings/"
    made.put("k.txt", b"v")
    assert s3.keys("via-settings/") == ["via-settings/k.txt"]
    made.close()
    shown = repr(Settings(**s3.settings()))  # type: ignore[arg-type]
    assert SECRET_KEY not in shown and ACCESS_KEY not in shown
    for bad in ("s3://", "http://bucket/x", "s3://Bucket_Name/x", "s3://b/../x"):
        with pytest.raises(SettingsError):
            Settings(object_store=bad)


def test_readiness_and_team_start_check_the_object_store(
    tmp_settings: Settings, s3: S3Server
) -> None:
    """``/readyz``'s state names a shared object store (ready while it answers, not when it
    does not); a team server whose s3:// store lacks its keys stops before it starts."""
    from tests.faces.web._server import free_port

    from litdesk.adapters.store import open_store
    from litdesk.services.accounts import prepare_team_store, readiness

    store = open_store(tmp_settings)
    try:
        assert "objects" not in readiness(store).to_dict()
        up = _s3(s3, "ready/")
        assert readiness(store, up).to_dict() | {"revision": None, "head": None} == {
            "ready": True, "database": "ok", "revision": None, "head": None, "objects": "ok",
        }  # fmt: skip
        down = _s3(s3, "ready/", endpoint=f"http://127.0.0.1:{free_port()}", timeout=1.0)
        state = readiness(store, down)
        assert not state.ready and state.objects == "unreachable (object_store)"
        up.close()
        down.close()
    finally:
        store.dispose()
    no_keys = tmp_settings.model_copy(
        update={"object_store": "s3://bucket/lab", "database_url": "postgresql://u@h/db"}
    )
    with pytest.raises(ConfigError) as got:
        prepare_team_store(no_keys)
    assert got.value.code == "object_store_credentials"


def test_s3_reads_no_aws_configuration(
    s3: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AWS's own variables and files (another endpoint, a profile, other keys) change
    nothing: the requests and their signatures go to the configured endpoint only."""
    other = f"http://127.0.0.1:{_free()}"
    config = tmp_path / "aws-config"
    config.write_text(f"[default]\nendpoint_url = {other}\nregion = eu-west-3\n")
    monkeypatch.setenv("AWS_ENDPOINT_URL", other)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", other)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "no-such-profile")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "not-these")
    store = _s3(s3, "aws-env/")
    store.put("a.txt", b"a")
    assert store.get("a.txt") == b"a"
    store.close()
    aws = S3Objects(
        bucket="b", prefix="", endpoint=None, region="eu-central-1", access_key=ACCESS_KEY,
        secret_key=SECRET_KEY, timeout=1.0, max_bytes=LIMIT,
    )  # fmt: skip
    assert aws._client.meta.endpoint_url == "https://s3.eu-central-1.amazonaws.com"
    aws.close()


def _free() -> int:
    from tests.faces.web._server import free_port

    return free_port()
