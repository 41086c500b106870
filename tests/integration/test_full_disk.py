"""A full disk, for real: the project's output folder (``.as-test``) on a tmpfs the test mounts,
filled with a filler file so that a spec's module no longer fits, then given back by removing
it. Real asc, real as-test, real wasmtime, real doit, and a real nginx as the read-write remote
cache.

What must hold (issue 38, class 1): one ``ERROR:`` line naming the full folder, no traceback; no
earlier build record, result or report replaced; nothing uploaded; and the next run after space
is back passes by itself, with no ``doit forget``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from astest_tasks.build.module_check import module_problem
from tests.integration.conftest import DoitRun, Project, copy_project, passing_tests_line
from tests.integration.toolchains import Toolchain
from tests.nginx_cache import CacheServer
from tests.tmpfs import fill, mounted_tmpfs

DISK_BYTES = 4 * 1024 * 1024  # a whole run of the passing fixture takes about 0.9 MB
LEFT_FOR_SMALL_FILES = 32 * 1024  # records and the import scan fit; a spec's module (58 kB) not
SPEC = "assembly/__tests__/geometry.spec.ts"
WASM = ".as-test/build/wasi/geometry.spec.wasm"
RECORD = ".as-test/build/wasi/geometry.build.json"


@pytest.fixture
def project(tmp_path: Path, toolchain: Toolchain) -> Iterator[Project]:
    """The passing fixture with its output folder, snapshots included, on a tmpfs of its own."""
    copied = copy_project("passing", tmp_path / "machine", toolchain)
    output = copied.root / ".as-test"
    kept = tmp_path / "output-as-copied"
    shutil.move(output, kept)
    with mounted_tmpfs(output, DISK_BYTES):
        shutil.copytree(kept, output, dirs_exist_ok=True)
        yield copied


def change_the_module(project: Project) -> None:
    """An edit that gives geometry.spec.ts another module (not just another comment)."""
    spec = project.root / SPEC
    text = spec.read_text()
    spec.write_text(text.replace("expect(area(0, 3)).toBe(0.0);", "expect(area(1, 1)).toBe(1.0);"))


def outputs(project: Project) -> dict[str, bytes]:
    """Every file the runs left in the output folder: records, results, logs, reports (not
    ``cache/``, our own bookkeeping: the project's lock, the import scan)."""
    folder = project.root / ".as-test"
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != "filler" and path.parent.name != "cache"
    }


def stored(server: CacheServer) -> set[str]:
    return {str(p.relative_to(server.stored)) for p in server.stored.rglob("*") if p.is_file()}


def assert_one_disk_error(run: DoitRun, project: Project, folder: str) -> None:
    errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1, run.stderr[-3000:]
    assert errors[0].startswith(f"ERROR: the disk holding {folder}"), errors[0]
    mounted = f"(the filesystem mounted at {(project.root / '.as-test').resolve()}) is full"
    assert mounted in errors[0] and "fix: free space" in errors[0], errors[0]
    assert "Traceback" not in run.stderr + run.stdout, run.stderr[-3000:]
    assert run.exit_code == 1, run.stdout[-2000:]


def assert_kept_and_not_shared(
    project: Project, before: dict[str, bytes], server: CacheServer, shared: set[str]
) -> None:
    """After a full disk: every output that was there is byte for byte the same, and the cache
    holds what it held before."""
    after = outputs(project)
    changed = {name for name in before.keys() & after.keys() if before[name] != after[name]}
    assert not changed, f"replaced on a full disk: {changed}"
    assert stored(server) == shared, "uploaded from a full disk"


def assert_whole_build(project: Project) -> None:
    record = json.loads((project.root / RECORD).read_text())
    module = (project.root / WASM).read_bytes()
    assert record["status"] == "ok"
    assert record["wasm_sha256"] == hashlib.sha256(module).hexdigest()
    assert module_problem(module) is None


def test_a_build_on_a_full_disk_records_nothing_uploads_nothing_and_builds_again_after(
    project: Project, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    cache = {"ASTEST_REMOTE_CACHE": cache_server.url()}
    first = project.doit(env=cache)
    assert first.exit_code == 0 and first.last_line.startswith("remote cache: "), first.stdout
    before, shared = outputs(project), stored(cache_server)
    assert RECORD.removeprefix(".as-test/") in before and shared, "the first run proves nothing"

    change_the_module(project)
    filler = fill(project.root / ".as-test", leave_bytes=LEFT_FOR_SMALL_FILES)
    full = project.doit(env=cache)
    assert_one_disk_error(full, project, ".as-test/build/wasi")
    assert "astest:build:wasi:geometry" in full.executed
    filler.unlink()
    assert_kept_and_not_shared(project, before, cache_server, shared)

    again = project.doit(env=cache)
    assert again.exit_code == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert {"astest:build:wasi:geometry", "astest:run:wasi:geometry"} <= set(again.executed)
    assert passing_tests_line(toolchain) in again.stdout
    assert_whole_build(project)
    assert stored(cache_server) > shared, "the good build is shared once there is space"


def test_a_run_on_a_full_disk_keeps_the_earlier_result_and_runs_again_after(
    project: Project, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    cache = {"ASTEST_REMOTE_CACHE": cache_server.url()}
    assert project.doit(env=cache).exit_code == 0
    change_the_module(project)
    builds = ["astest:build:wasi:geometry", "astest:build:bindings:geometry"]
    built = project.doit(*builds, env=cache)
    assert built.exit_code == 0 and built.executed == builds, built.stdout
    before, shared = outputs(project), stored(cache_server)

    filler = fill(project.root / ".as-test", leave_bytes=0)
    full = project.doit(env=cache)
    assert_one_disk_error(full, project, ".as-test/")
    assert "astest:run:wasi:geometry" in full.executed
    filler.unlink()
    assert_kept_and_not_shared(project, before, cache_server, shared)

    again = project.doit(env=cache)
    assert again.exit_code == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "astest:run:wasi:geometry" in again.executed
    assert passing_tests_line(toolchain) in again.stdout
    result = outputs(project)["build/wasi/geometry.result.jsonl"]
    assert result != before["build/wasi/geometry.result.jsonl"], "the run wrote no new result"


def test_reports_on_a_full_disk_keep_the_earlier_ones_and_are_written_after(
    project: Project, toolchain: Toolchain
) -> None:
    assert project.doit().exit_code == 0
    change_the_module(project)
    tasks = [
        f"astest:{stage}:{mode}:geometry"
        for stage in ("build", "run")
        for mode in ("wasi", "bindings")
    ]
    ran = project.doit(*tasks)
    assert ran.exit_code == 0 and sorted(ran.executed) == sorted(tasks), ran.stdout
    before = outputs(project)

    filler = fill(project.root / ".as-test", leave_bytes=0)
    full = project.doit()
    assert_one_disk_error(full, project, ".as-test")
    assert full.executed == ["astest:summary"], full.stdout
    filler.unlink()
    assert outputs(project) == before, "a report was replaced on a full disk"

    again = project.doit()
    assert again.exit_code == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert passing_tests_line(toolchain) in again.stdout
    assert outputs(project)["report.json"] != before["report.json"], "the report was not rewritten"


CUT_MARK = "cut-the-next-module"
# A build command that compiles as the default one does, then empties the module while the
# mark is there: a compiler that says it succeeded and left nothing usable (as asc does on a
# full disk), on a disk with room, so that only the module's check can notice.
BUILD_SCRIPT = f"""#!/bin/sh
node ./node_modules/assemblyscript/bin/asc.js "$1" --transform as-test/transform \\
  --use AS_TEST_WASI=1 --config ./node_modules/@assemblyscript/wasi-shim/asconfig.json -o "$2" \\
  || exit
if [ -e {CUT_MARK} ]; then : > "$2"; fi
"""


@pytest.mark.toolchains("1.0.7")  # the script passes as-test 1.0.7's flags: our machinery only
def test_a_module_that_fails_its_check_fails_its_spec_and_builds_again_unchanged(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    config_file = project.root / "as-test.config.json"
    config = json.loads(config_file.read_text())
    config["modes"] = {
        "wasi": {"buildOptions": {"target": "wasi", "cmd": "sh ./build.sh <file> <outFile>"}}
    }
    config_file.write_text(json.dumps(config))
    (project.root / "build.sh").write_text(BUILD_SCRIPT)
    (project.root / CUT_MARK).touch()

    cut = project.doit()
    assert cut.exit_code == 1, cut.stdout[-3000:]
    assert "Traceback" not in cut.stdout + cut.stderr
    assert f"the compiler exited 0 but its {WASM} cannot be used: it is empty" in cut.stdout
    assert project.verdicts()[("geometry", "wasi")] == "failed"
    assert not (project.root / WASM).exists(), "no module that fails its check stays in place"

    (project.root / CUT_MARK).unlink()  # nothing the build reads has changed
    again = project.doit()
    assert again.exit_code == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert {"astest:build:wasi:geometry", "astest:run:wasi:geometry"} <= set(again.executed)
    assert_whole_build(project)


def test_a_fuzz_campaign_on_a_full_disk_keeps_its_earlier_result_and_runs_again_after(
    tmp_path: Path,
) -> None:
    """A random seed always runs (test_fuzz.py): the second campaign meets the full disk."""
    project = copy_project("fuzz", tmp_path / "machine")
    sound = "astest:fuzz:default:sound"
    result = project.root / ".as-test/build/default/fuzz/sound.fuzz.result.json"
    with mounted_tmpfs(project.root / ".as-test", DISK_BYTES):
        assert project.doit(sound).exit_code == 0
        earlier = result.read_bytes()
        filler = fill(project.root / ".as-test", leave_bytes=0)
        full = project.doit(sound)
        assert_one_disk_error(full, project, ".as-test/")
        assert sound in full.executed
        filler.unlink()
        assert result.read_bytes() == earlier, "the earlier campaign's result was replaced"
        again = project.doit(sound)
        assert again.exit_code == 0 and sound in again.executed, again.stderr[-3000:]
        assert result.read_bytes() != earlier, "the campaign wrote no new result"


def test_doits_own_state_on_a_full_disk_is_one_error_line_and_the_next_run_passes(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    """doit saves its state file once, when the run ends, after ours are all written; and it
    creates the file when the run starts."""
    project = copy_project("passing", tmp_path / "machine", toolchain)
    with mounted_tmpfs(tmp_path / "state", 256 * 1024) as state_disk:
        state = state_disk / "doit.db"
        disk = f"the disk holding {state_disk} (the filesystem mounted at {state_disk}) is full"
        assert project.doit("--db-file", str(state)).exit_code == 0

        change_the_module(project)
        filler = fill(state_disk, leave_bytes=16 * 1024)  # the file is there; the save fails
        full = project.doit("--db-file", str(state))
        assert one_error_line(full) == (
            f"ERROR: {disk} (no space left while doit saved which tasks are up to date, in "
            "doit.db); the results and reports this run wrote are whole; fix: free space on it "
            "(or raise your quota) and run again: the tasks this run ran run again"
        )
        assert full.exit_code == 3
        assert passing_tests_line(toolchain) in full.stdout, "the run itself was whole"
        assert {"astest:build:wasi:geometry", "astest:run:wasi:geometry"} <= set(full.executed)

        filler.unlink()
        again = project.doit("--db-file", str(state))
        assert again.exit_code == 0, again.stdout[-3000:] + again.stderr[-3000:]
        assert passing_tests_line(toolchain) in again.stdout
        assert "astest:run:wasi:geometry" in again.executed, "doit saved nothing, so it runs again"
        settled = project.doit("--db-file", str(state))
        assert settled.exit_code == 0, settled.stderr[-3000:]
        assert set(settled.executed) <= {"astest:summary"}, settled.executed

        state.unlink()
        fill(state_disk, leave_bytes=16 * 1024)  # too little to create it and save a whole run
        start = project.doit("--db-file", str(state))
        assert one_error_line(start) == (
            f"ERROR: {disk}, and doit cannot create its record of which tasks are up to date "
            f"({state}) there; fix: free space on it (or raise your quota) and run again"
        )
        assert start.exit_code == 3 and not start.executed


def one_error_line(run: DoitRun) -> str:
    errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1, run.stderr[-3000:]
    assert "Traceback" not in run.stdout + run.stderr, run.stderr[-3000:]
    return errors[0]


def test_a_build_that_stops_doit_on_a_full_disk_and_doits_state_save_are_two_lines(
    project: Project, tmp_path: Path
) -> None:
    """doit stops at the failed build, before any run task is checked, and still saves its
    state file: the tasks that ran before the build (the runner script's) are in it."""
    with mounted_tmpfs(tmp_path / "state", 256 * 1024) as state_disk:
        state = state_disk / "doit.db"
        assert project.doit("--db-file", str(state)).exit_code == 0
        runner = next((project.root / ".as-test" / "runners").glob("*.py"))
        runner.unlink()  # its task runs first again, and succeeds
        change_the_module(project)
        fill(project.root / ".as-test", leave_bytes=LEFT_FOR_SMALL_FILES)
        fill(state_disk, leave_bytes=0)
        full = project.doit("--db-file", str(state))
        errors = [line for line in full.stderr.splitlines() if line.startswith("ERROR:")]
        assert "Traceback" not in full.stdout + full.stderr, full.stderr[-3000:]
        assert [line.split(" (no space left while ")[1].split(")")[0] for line in errors] == [
            f"compiling {SPEC}",
            "doit saved which tasks are up to date, in doit.db",
        ], full.stderr[-3000:]
        assert "astest:run:wasi:geometry" not in full.executed, "doit stopped at the build"
        assert full.exit_code == 3
