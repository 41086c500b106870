"""What a task may share through the remote cache: a plain pass that changed nothing, only, and
only under the key its inputs had while it ran; and what counts as a hit."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from astest_tasks.actions import remote_actions
from astest_tasks.actions.remote_actions import fetch_build, fetch_run, shareable, store_build
from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compiler import BuildRecord
from astest_tasks.core.disk_space import DiskFull
from astest_tasks.model.results import Status, result_file_text
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.remote.remote_use import RemoteUse
from astest_tasks.remote.settings import parse_settings
from astest_tasks.remote.task_keys import RemoteKeyInputs, RemoteTask
from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.run.run_request import RunRequest
from astest_tasks.schedule import scheduler as scheduler_module
from astest_tasks.schedule.scheduler import Scheduler
from tests.conftest import (
    make_build_request,
    make_expectation,
    make_run_request,
    make_spec_result,
    make_suite,
    peak_of,
)
from tests.nginx_cache import CacheServer
from tests.tmpfs import fill, mounted_tmpfs

REQUEST = make_run_request("/project", "math", DefaultRuntime("wasi"))


def test_a_plain_pass_is_shared() -> None:
    assert shareable(REQUEST, make_spec_result())


@pytest.mark.parametrize(
    "case",
    ["failed", "crashed or timed out", "wrote snapshots", "--update-snapshots", "--no-snapshot"],
)
def test_nothing_else_is_shared(case: str) -> None:
    request, result = REQUEST, make_spec_result()
    if case == "failed":
        result = make_spec_result(status=Status.FAILED)
    elif case == "crashed or timed out":
        result = make_spec_result(error="the spec ran longer than its timeout (2 s)")
    elif case == "wrote snapshots":
        result = make_spec_result(written=("wrote .as-test/snapshots/math.spec.snap",))
    elif case == "--update-snapshots":
        snapshots = replace(REQUEST.snapshots, update=SnapshotUpdate.CREATE)
        request = replace(REQUEST, snapshots=snapshots)
    else:
        request = replace(REQUEST, snapshots=replace(REQUEST.snapshots, no_snapshot=True))
    assert not shareable(request, result)


# -- against the real server: what is stored, and what counts as a hit --


@pytest.fixture
def fresh_scheduler(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scheduler]:
    """A scheduler of its own behind the door, so each test starts with no client."""
    installed = Scheduler()
    monkeypatch.setattr(scheduler_module, "_current", installed)
    yield installed
    installed.close()


def built_spec(root: Path, cache_server: CacheServer) -> tuple[RemoteTask, BuildRequest]:
    """A build whose one input is its spec file, with a remote task of that input."""
    request = make_build_request(root, "math")
    spec = root / request.spec.path
    spec.parent.mkdir(parents=True)
    spec.write_text("export const version = 1;\n")
    use = RemoteUse(parse_settings(cache_server.url()), str(root / "remote-state"), "session-1")
    key = RemoteKeyInputs("build", {"format": 1}, (request.spec.path,))
    return RemoteTask(use, key, outputs=(request.wasm_path,)), request


def compiled(root: Path, request: BuildRequest) -> BuildRecord:
    """What a compile leaves: the module and its record, written as the build action does."""
    wasm = b"\0asm\1\0\0\0"
    (root / request.wasm_path).parent.mkdir(parents=True, exist_ok=True)
    (root / request.wasm_path).write_bytes(wasm)
    record = BuildRecord(
        "ok", request.spec.path, "wasi", "wasi", request.wasm_path,
        hashlib.sha256(wasm).hexdigest(), "asc", 0, "",
    )  # fmt: skip
    (root / request.record_path).write_text(record.to_json())
    return record


def counts(planner: Scheduler, remote: RemoteTask) -> tuple[int, int, int]:
    client = planner.remote.client(remote.use)
    assert client is not None, "the cache went off: the test proves nothing"
    client.flush()
    found = client.counts()
    return found.hits, found.misses, found.uploaded


def test_a_build_is_stored_under_the_key_its_inputs_had_when_it_compiled(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    remote, request = built_spec(tmp_path, cache_server)
    lookup, record = fetch_build(remote, request)
    assert record is None and lookup.key is not None  # a miss, with its key
    store_build(remote, lookup, request, compiled(tmp_path, request))
    assert counts(fresh_scheduler, remote) == (0, 1, 1)


def test_a_build_whose_input_changed_while_it_compiled_is_not_stored(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    """A save during the compile (watch mode): the module may be of the new source, and must
    not be shared under the old source's key."""
    remote, request = built_spec(tmp_path, cache_server)
    lookup, _ = fetch_build(remote, request)
    record = compiled(tmp_path, request)
    (tmp_path / request.spec.path).write_text("export const version = 2;\n")
    store_build(remote, lookup, request, record)
    assert counts(fresh_scheduler, remote) == (0, 1, 0)
    assert fetch_build(remote, request)[1] is None, "nothing stored under the new key either"


def test_an_entry_the_task_cannot_use_counts_as_a_miss(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    remote, request = built_spec(tmp_path, cache_server)
    lookup, _ = fetch_build(remote, request)
    assert lookup.key is not None
    client = fresh_scheduler.remote.client(remote.use)
    assert client is not None
    client.store(lookup.key, {"not the build's files": b"x"}, {"kind": "build"})
    client.flush()
    assert fetch_build(remote, request)[1] is None
    assert counts(fresh_scheduler, remote)[:2] == (0, 2)


def test_an_entry_of_an_empty_module_recorded_as_built_is_a_miss_and_writes_nothing(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    """What a machine whose disk was full stored before builds were checked: a record ``ok``
    whose digest is that of the empty module beside it. Signed and hashed, yet not a build."""
    remote, request = built_spec(tmp_path, cache_server)
    lookup, _ = fetch_build(remote, request)
    assert lookup.key is not None
    poisoned = replace(compiled(tmp_path, request), wasm_sha256=hashlib.sha256(b"").hexdigest())
    client = fresh_scheduler.remote.client(remote.use)
    assert client is not None
    blobs = {request.wasm_path: b"", "record": poisoned.to_json().encode()}
    client.store(lookup.key, blobs, {"kind": "build"})
    client.flush()
    (tmp_path / request.wasm_path).unlink()
    (tmp_path / request.record_path).unlink()
    assert fetch_build(remote, request)[1] is None
    assert counts(fresh_scheduler, remote)[:2] == (0, 2)
    assert not (tmp_path / request.wasm_path).exists(), "the empty module was written"
    assert not (tmp_path / request.record_path).exists(), "its record was written"


def test_a_build_whose_module_is_no_longer_the_one_it_recorded_is_not_stored(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    remote, request = built_spec(tmp_path, cache_server)
    lookup, _ = fetch_build(remote, request)
    record = compiled(tmp_path, request)
    (tmp_path / request.wasm_path).write_bytes(b"")  # cut after its build checked it
    store_build(remote, lookup, request, record)
    assert counts(fresh_scheduler, remote) == (0, 1, 0)


def test_a_run_that_may_write_snapshots_does_not_ask_the_cache(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    """Its result is never shared, so a stored pass could only be rejected: no lookup, no hit."""
    remote, _ = built_spec(tmp_path, cache_server)
    run = make_run_request(tmp_path, "math", DefaultRuntime("wasi"))
    updating = replace(run, snapshots=replace(run.snapshots, update=SnapshotUpdate.CREATE))
    lookup, result = fetch_run(replace(remote, outputs=()), updating)
    assert (lookup.key, result) == (None, None)
    assert counts(fresh_scheduler, remote) == (0, 0, 0)
    assert fetch_run(replace(remote, outputs=()), run)[0].key is not None  # the plain run asks


def stored_run(
    root: Path, cache_server: CacheServer, scheduler: Scheduler, result_bytes: bytes
) -> tuple[RemoteTask, RunRequest]:
    """A run request of spec ``math`` whose key holds an entry naming ``result_bytes`` as its
    result, as a writer of the cache put it there."""
    remote, _ = built_spec(root, cache_server)
    remote = replace(remote, outputs=())
    run = make_run_request(root, "math", DefaultRuntime("wasi"))
    key = remote.portable_key(root)
    client = scheduler.remote.client(remote.use)
    assert key is not None and client is not None
    client.store(key, {"result": result_bytes}, {"kind": "run"})
    client.flush()
    return remote, run


PASS_TEXT = result_file_text(make_spec_result(suites=(make_suite("adds", make_expectation()),)))


def test_a_stored_pass_of_this_run_is_taken_whole(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    """The counterpart of the misses below: the same set-up with a good record is a hit."""
    remote, run = stored_run(tmp_path, cache_server, fresh_scheduler, PASS_TEXT.encode())
    _, result = fetch_run(remote, run)
    assert result is not None and result.status is Status.PASSED
    assert (tmp_path / run.files.result).read_text() == PASS_TEXT
    assert counts(fresh_scheduler, remote)[:2] == (1, 0)


@pytest.mark.parametrize(
    "case",
    [
        "not a result",
        "suites that do not parse",
        "test cases that do not parse",
        "cut short",
        "another spec's",
        "a failure",
    ],
)
def test_a_run_entry_whose_result_does_not_read_back_is_a_miss(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler, case: str
) -> None:
    """Whatever the result bytes of a run entry are, they become this run's result only if
    they are one, whole: a head that parses over suites that do not was taken before, and left
    a result file the summary cannot read."""
    head, suites, cases = PASS_TEXT.splitlines()
    data = {
        "not a result": "<html>a proxy's error page</html>\n",
        "suites that do not parse": f"{head}\n[{{not json}}]\n{cases}\n",
        "test cases that do not parse": f"{head}\n{suites}\n[1, 2]\n",
        "cut short": PASS_TEXT[: len(head) + len(suites) // 2],
        "another spec's": result_file_text(make_spec_result("geometry")),
        "a failure": result_file_text(make_spec_result(status=Status.FAILED)),
    }[case]
    remote, run = stored_run(tmp_path, cache_server, fresh_scheduler, data.encode())
    lookup, result = fetch_run(remote, run)
    assert result is None and lookup.key is not None
    folder = (tmp_path / run.files.result).parent
    assert not folder.exists() or list(folder.iterdir()) == []  # no result, no temporary file
    assert counts(fresh_scheduler, remote)[:2] == (0, 1)


def test_a_result_larger_than_any_record_is_a_miss_not_memory(
    tmp_path: Path,
    cache_server: CacheServer,
    fresh_scheduler: Scheduler,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cap's edge: a result one byte over it is a miss, one at it a hit (the cap stands at
    16 MiB, lowered here to the size of a real result)."""
    monkeypatch.setattr(remote_actions, "MAX_RESULT_BYTES", len(PASS_TEXT) - 1)
    remote, run = stored_run(tmp_path, cache_server, fresh_scheduler, PASS_TEXT.encode())
    assert fetch_run(remote, run)[1] is None
    assert not (tmp_path / run.files.result).exists()
    monkeypatch.setattr(remote_actions, "MAX_RESULT_BYTES", len(PASS_TEXT))
    assert fetch_run(remote, run)[1] is not None
    assert counts(fresh_scheduler, remote)[:2] == (1, 1)


def test_a_taken_result_whose_log_finds_the_disk_full_fails_the_run(
    tmp_path: Path, cache_server: CacheServer, fresh_scheduler: Scheduler
) -> None:
    """The one full disk a lookup does not make a miss, on a real tmpfs with room for the
    result's page only: the result is taken, its readable log cannot follow, and the action
    fails with the full disk (a miss would leave a log that belongs to the last run)."""
    with mounted_tmpfs(tmp_path / "disk", 256 * 1024) as root:
        remote, run = stored_run(root, cache_server, fresh_scheduler, PASS_TEXT.encode())
        run = replace(run, logs_dir=".as-test/logs")
        fill(root, 4096)
        with pytest.raises(DiskFull):
            fetch_run(remote, run)
        assert (root / run.files.result).read_text() == PASS_TEXT


def test_an_oversized_result_is_a_miss_judged_by_its_size_not_read(
    tmp_path: Path,
    cache_server: CacheServer,
    fresh_scheduler: Scheduler,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Any writer of an unsigned cache can store a result of up to 1 GiB; a lookup read up to
    256 MiB of it and parsed it all (several GB of objects). A result over the cap, a real
    result padded past it, is now a miss for its size alone, with no warning."""
    padding = "\n" * (remote_actions.MAX_RESULT_BYTES - len(PASS_TEXT) + 1)
    remote, run = stored_run(
        tmp_path, cache_server, fresh_scheduler, (PASS_TEXT + padding).encode()
    )
    (lookup, result), peak = peak_of(lambda: fetch_run(remote, run))
    assert result is None and lookup.key is not None
    assert not (tmp_path / run.files.result).parent.exists() or not any(
        (tmp_path / run.files.result).parent.iterdir()
    )
    assert counts(fresh_scheduler, remote)[:2] == (0, 1)
    assert peak < 4 * 2**20, f"a lookup of a 16 MiB result peaked at {peak >> 20} MiB"
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("oversized", ["module", "record"])
def test_an_oversized_module_or_build_record_is_a_miss_judged_by_its_size_not_read(
    tmp_path: Path,
    cache_server: CacheServer,
    fresh_scheduler: Scheduler,
    capsys: pytest.CaptureFixture[str],
    oversized: str,
) -> None:
    """The same for a build: a module larger than any spec's is never read to be checked, and
    a record over the cap (a real one padded past it, which parses) is never read either."""
    remote, request = built_spec(tmp_path, cache_server)
    lookup, _ = fetch_build(remote, request)
    assert lookup.key is not None
    module = b"\0asm\1\0\0\0"
    if oversized == "module":
        module += bytes(remote_actions.MAX_MODULE_BYTES)
    record = replace(compiled(tmp_path, request), wasm_sha256=hashlib.sha256(module).hexdigest())
    record_bytes = record.to_json().encode()
    if oversized == "record":
        record_bytes += b" " * remote_actions.MAX_BUILD_RECORD_BYTES
    client = fresh_scheduler.remote.client(remote.use)
    assert client is not None
    client.store(lookup.key, {request.wasm_path: module, "record": record_bytes}, {})
    client.flush()
    del module, record_bytes
    (tmp_path / request.wasm_path).unlink()
    (tmp_path / request.record_path).unlink()
    (_, taken), peak = peak_of(lambda: fetch_build(remote, request))
    assert taken is None
    assert not (tmp_path / request.wasm_path).exists()
    assert not (tmp_path / request.record_path).exists()
    assert counts(fresh_scheduler, remote)[:2] == (0, 2)
    assert peak < 4 * 2**20, f"a lookup of an oversized {oversized} peaked at {peak >> 20} MiB"
    assert capsys.readouterr().err == ""
