"""What the build and run actions share through the remote cache, and what they never share.

- A build: looked up before compiling; on a hit its outputs (the module, and a bindings target's
  JavaScript) are written, then its record, as a compile would have left them. After a compile
  that succeeded, its outputs and record are stored, under the key taken before compiling, and
  only if the inputs still give that key (a file edited while asc ran must not have its output
  shared under the older content's key).
- A run: looked up before running; on a hit the result file is written as it was stored, with
  its readable log made from it, and the summary marks it ``(remote)``. Only a plain pass is
  stored: never a failure, a crash or a timeout (they run again anyway), never a run that
  updated snapshots or wrote files into the project, and never one with snapshots unchecked.

A build's module is checked whole (build/module_check.py) before it is taken from the cache,
and before it is stored it must be the very module its build checked and recorded. A lookup that
fails for any reason is a miss, and the action goes on as without a cache: a disk too full for
a blob too (one warning, http_cache.py), whereupon the action's own writes meet the full disk
and fail it (task_failure.py). Only the readable log of a result already taken fails the run
action from here. A process's counts reach the summary when it
publishes them: the summary's own process when the summary runs, any other at the end of each
action (``settle_remote``, ``finish_uploads``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compiler import BuildRecord
from astest_tasks.build.module_check import module_problem
from astest_tasks.core.disk_space import DiskFull
from astest_tasks.core.frozen import frozen
from astest_tasks.core.process_role import in_doits_main_thread
from astest_tasks.model.crash_records import remove_crash_record
from astest_tasks.model.results import (
    SpecResult,
    Status,
    parse_stored,
    previous_result_path,
    read_result_bytes,
)
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.model.spec_logs import write_spec_log
from astest_tasks.remote.task_keys import RemoteTask
from astest_tasks.run.run_request import RunRequest
from astest_tasks.schedule.scheduler import scheduler

if TYPE_CHECKING:
    from astest_tasks.remote.http_cache import RemoteCache, Staged

_RECORD = "record"
_RESULT = "result"
# A hit's files are read whole to be judged before they are taken, and any writer of the cache
# can store one of up to 1 GiB: a file larger than any a real spec makes is a miss, its size
# read before its bytes, so that what a lookup holds stays bounded. Measured with as-test 1.8.0:
# a spec's module is about 70 kB, a build record 1 kB, and one result of the 360,006-test big
# suite (bench/generate_big_suite.py, 60,001 tests per spec and mode) 3.4 MiB, which parses to
# 48 MiB of Python objects. Over a cap, the spec only builds or runs here, as without a cache.
MAX_MODULE_BYTES = 32 * 2**20
MAX_BUILD_RECORD_BYTES = 2**20
MAX_RESULT_BYTES = 16 * 2**20
_UNREADABLE = (OSError, ValueError, KeyError, TypeError, AttributeError, AssertionError)


@frozen
class Lookup:
    """A lookup's key, kept for the store after a miss; None when the task has no portable key
    or the cache is off."""

    key: str | None


def settle_remote(remote: RemoteTask | None) -> None:
    """Where the summary cannot wait for this process's uploads (a ``doit -n N`` worker), let
    them end before the action returns; in doit's own thread they go on beside the next task,
    and the summary waits for them."""
    if remote is not None and not in_doits_main_thread():
        finish_uploads(remote)


def finish_uploads(remote: RemoteTask | None) -> None:
    """Let this process's uploads end and publish its counts: for a process whose work the
    summary does not wait for (a worker, or the run ahead's helper, which answers doit after)."""
    if remote is not None:
        with contextlib.suppress(Exception):  # a cache only ever speeds a run up
            scheduler().remote.publish(remote.use, wait_for_uploads=True)


def _lookup(remote: RemoteTask, root: Path) -> tuple[str, RemoteCache] | None:
    """The task's key and the client to ask; None when the cache is off or the key has no
    portable form."""
    cache = scheduler().remote.client(remote.use)
    key = None if cache is None else remote.portable_key(root)
    return None if cache is None or key is None else (key, cache)


# -- builds --------------------------------------------------------------------------------------


def _fetch_build(remote: RemoteTask, request: BuildRequest) -> tuple[Lookup, BuildRecord | None]:
    """The build from the cache, its files written; the record is None on a miss."""
    root = Path(request.project_root)
    found = _lookup(remote, root)
    if found is None:
        return Lookup(None), None
    key, cache = found
    destinations = {output: root / output for output in remote.outputs}
    # Last: the record is the build's target and its run's input; it names a module in place.
    destinations[_RECORD] = root / request.record_path
    return Lookup(key), cache.fetch(
        key, destinations, lambda staged: _usable_record(request, staged)
    )


def _usable_record(request: BuildRequest, staged: Staged) -> BuildRecord | None:
    """The staged record, if it is a successful build of this request's module and that module
    is the staged one (its digest already checked while it streamed in)."""
    try:
        text = _read_capped(staged.files[_RECORD], MAX_BUILD_RECORD_BYTES)
        if text is None:
            return None
        record = BuildRecord.from_json(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, OSError):
        return None
    wasm_digest = staged.digests.get(request.wasm_path)
    if not record.ok or record.wasm != request.wasm_path or wasm_digest is None:
        return None
    if wasm_digest != record.wasm_sha256:
        return None
    # Signed and hashed says who stored it, not that it is whole: a machine whose disk was full
    # may have recorded an empty module as built. A compile here checks its own the same way.
    try:
        wasm = _read_capped(staged.files[request.wasm_path], MAX_MODULE_BYTES)
    except (OSError, KeyError):
        return None
    return record if wasm is not None and module_problem(wasm) is None else None


def _read_capped(path: Path, cap: int) -> bytes | None:
    """A staged file, read whole to be judged; None, unread, when it is larger than ``cap``."""
    with path.open("rb") as file:
        if os.fstat(file.fileno()).st_size > cap:
            return None
        data = file.read(cap + 1)  # bounded even if the file grew since
    return data if len(data) <= cap else None


def _store_build(
    remote: RemoteTask, lookup: Lookup, request: BuildRequest, record: BuildRecord
) -> None:
    """Queue the upload of a successful compile's files (nothing for a failed one)."""
    cache = scheduler().remote.client(remote.use)
    if lookup.key is None or cache is None or not record.ok:
        return
    root = Path(request.project_root)
    if remote.portable_key(root) != lookup.key:
        return  # an input changed while it compiled (a save in watch mode): not this key's
    try:
        blobs = {output: (root / output).read_bytes() for output in remote.outputs}
        blobs[_RECORD] = (root / request.record_path).read_bytes()
    except OSError:
        return  # something moved the outputs meanwhile: nothing trustworthy to share
    if hashlib.sha256(blobs[request.wasm_path]).hexdigest() != record.wasm_sha256:
        return  # not the module the build verified and recorded
    cache.store(lookup.key, blobs, {"kind": "build", "spec": request.spec.path})


# -- runs ----------------------------------------------------------------------------------------


def _fetch_run(remote: RemoteTask, run: RunRequest) -> tuple[Lookup, SpecResult | None]:
    """The run's passing result from the cache, written with its log; None on a miss."""
    root = Path(run.project_root)
    if not _may_share(run):
        return Lookup(None), None  # nothing it makes may be shared, or taken from the cache
    found = _lookup(remote, root)
    if found is None:
        return Lookup(None), None
    key, cache = found
    result_path = root / run.files.result
    taken = cache.fetch(key, {_RESULT: result_path}, lambda staged: _usable_result(run, staged))
    if taken is None:
        return Lookup(key), None
    head, full = taken
    _remove_previous_result(result_path)
    if run.logs_dir is not None:
        try:
            command = run.task_command("run")
            write_spec_log(root, run.logs_dir, full, command)  # its log() lines
        except DiskFull:
            raise  # the log would stay the last run's while the result moved on
        except (OSError, ValueError, KeyError, TypeError):
            pass
    remove_crash_record(root, run.crash_dir, run.spec.spec_id, run.spec.mode)
    scheduler().remote.note_served(remote.use, run.spec.mode, run.spec.spec_id)
    # The head: what the live line prints, and what a run ahead's helper sends back. The suites
    # are read from the file by whoever needs them.
    return Lookup(key), head


def _usable_result(run: RunRequest, staged: Staged) -> tuple[SpecResult, SpecResult] | None:
    """The staged result's head and whole, if it is this run's shareable pass. It is parsed to
    the end (its suites and test cases too): a result that does not read back is a miss, never
    a result the summary then cannot read."""
    try:
        data = _read_capped(staged.files[_RESULT], MAX_RESULT_BYTES)
        stored = None if data is None else parse_stored(data)
        if stored is None:
            return None
        full = stored.full()
        stored.test_cases()
    except _UNREADABLE:
        return None
    spec = run.spec
    same = (full.spec, full.spec_id, full.mode, full.target) == (
        spec.path,
        spec.spec_id,
        spec.mode,
        spec.target,
    )
    return (stored.result, full) if same and shareable(run, full) else None


def _remove_previous_result(path: Path) -> None:
    previous = previous_result_path(str(path))
    if previous is not None:
        with contextlib.suppress(OSError):
            Path(previous).unlink()


def shareable(run: RunRequest, result: SpecResult) -> bool:
    """Whether a run's result may be shared: a plain pass that changed nothing in the project."""
    return (
        result.status is Status.PASSED
        and not result.error
        and not result.written
        and _may_share(run)
    )


def _may_share(run: RunRequest) -> bool:
    """A run that may write snapshots, or checks none, is never shared nor looked up."""
    return run.snapshots.update is SnapshotUpdate.NONE and not run.snapshots.no_snapshot


def _store_run(remote: RemoteTask, lookup: Lookup, run: RunRequest, result: SpecResult) -> None:
    """Queue the upload of a passing result, as written to its file."""
    cache = scheduler().remote.client(remote.use)
    if lookup.key is None or cache is None or not shareable(run, result):
        return
    if remote.portable_key(Path(run.project_root)) != lookup.key:
        return  # an input changed while it ran: the result is not this key's
    data = read_result_bytes(Path(run.project_root) / run.files.result)
    if data is None:
        return
    cache.store(lookup.key, {_RESULT: data}, {"kind": "run", "spec": run.spec.path})


# -- the actions' entry points: a bug of ours in the cache code is a miss, never a failed spec ----


def fetch_build(remote: RemoteTask, request: BuildRequest) -> tuple[Lookup, BuildRecord | None]:
    """The build from the cache, its files written; the record is None on a miss."""
    try:
        return _fetch_build(remote, request)
    except Exception:  # a full disk included: the download made it a miss already
        return Lookup(None), None


def store_build(
    remote: RemoteTask, lookup: Lookup, request: BuildRequest, record: BuildRecord
) -> None:
    """Queue the upload of a successful compile's files (nothing for a failed one)."""
    with contextlib.suppress(Exception):
        _store_build(remote, lookup, request, record)


def fetch_run(remote: RemoteTask, run: RunRequest) -> tuple[Lookup, SpecResult | None]:
    """The run's passing result from the cache, written with its log; None on a miss."""
    try:
        return _fetch_run(remote, run)
    except DiskFull:
        # Only from the log of a result already taken (a full disk while the result downloads
        # is a miss): the result moved on and its log cannot follow, so the action fails.
        raise
    except Exception:
        return Lookup(None), None


def store_run(remote: RemoteTask, lookup: Lookup, run: RunRequest, result: SpecResult) -> None:
    """Queue the upload of a passing result, as written to its file."""
    with contextlib.suppress(Exception):
        _store_run(remote, lookup, run, result)
