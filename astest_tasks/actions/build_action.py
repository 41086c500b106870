"""The build task's action: compile one spec for one mode and record how it went.

A module-level function taking plain data, so ``doit -n N`` can ship it to worker processes under
any multiprocessing start method. A failed compile is recorded in the build record and the action
returns success: the run task turns the record into the spec's failure, and only the summary fails
the doit run (a failing task would stop doit without ``--continue`` and lose its saved state).
"""

from __future__ import annotations

import traceback
from pathlib import Path

from doit.exceptions import TaskFailed

from astest_tasks.actions.remote_actions import fetch_build, settle_remote, store_build
from astest_tasks.actions.task_failure import failed_task
from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compiler import BuildRecord, compile_spec, write_build_record
from astest_tasks.config.toolchain import check_node_version, load_toolchain
from astest_tasks.core.disk_space import DiskFull
from astest_tasks.core.errors import UserError
from astest_tasks.core.state_files import read_state_file
from astest_tasks.remote.task_keys import RemoteTask
from astest_tasks.schedule.scheduler import scheduler


def build_spec(build: BuildRequest, remote: RemoteTask | None = None) -> bool | TaskFailed:
    """``remote``: the remote cache is asked first, and a successful compile is stored in it.
    A full disk fails the task, recording nothing (task_failure.py)."""
    try:
        _build_and_record(build, remote)
    except DiskFull as exc:
        return failed_task(exc)
    finally:
        settle_remote(remote)
    return True


def _build_and_record(build: BuildRequest, remote: RemoteTask | None) -> None:
    record_file = Path(build.project_root) / build.record_path
    previous = _text_or_none(record_file)
    lookup, record = fetch_build(remote, build) if remote is not None else (None, None)
    if record is None:
        record = _compile(build)
        write_build_record(build, record)
        if remote is not None and lookup is not None:
            store_build(remote, lookup, build, record)
    # A record that changed is a changed file_dep of the spec's run: doit will run it.
    scheduler().note_built(str(record_file), changed=previous != record.to_json())


def _compile(build: BuildRequest) -> BuildRecord:
    try:
        toolchain = load_toolchain(Path(build.project_root), need_wasi_shim=build.needs_wasi_shim)
        check_node_version(toolchain.node)
        record = compile_spec(build, toolchain, scheduler())
    except DiskFull:
        raise  # not this spec's failure: nothing is recorded
    except UserError as exc:
        record = _failed_record(build, str(exc))
    except Exception:  # a bug of ours must fail this spec, not the whole run
        record = _failed_record(build, "internal error in astest-tasks:\n" + traceback.format_exc())
    return record


def _text_or_none(path: Path) -> str | None:
    """The record as it was before this build; None when there was none of ours to read."""
    data = read_state_file(path)
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _failed_record(build: BuildRequest, diagnostics: str) -> BuildRecord:
    return BuildRecord(
        status="failed",
        spec=build.spec.path,
        mode=build.spec.mode,
        target=build.spec.target,
        wasm=build.wasm_path,
        wasm_sha256="",
        command="",
        exit_code=-1,
        diagnostics=diagnostics,
    )
