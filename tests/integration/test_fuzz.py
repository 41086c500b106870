"""Fuzz targets as doit tasks, end to end: real asc and as-test 1.0.7, real wasmtime.

The fixture (tests/fixtures/fuzz) has a sound fuzz file, one with a planted bug that about one
input in twenty finds, and one that traps on most inputs.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import DoitRun, Project, clone_project, copy_project
from tests.integration.toolchains import Toolchain

# One worker runs the whole module (pytest-xdist's loadgroup): its module-scoped projects are
# built once, not once per worker.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("fuzz")]

SEED = "790229808"
BUGGY = "astest:fuzz:default:buggy"


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, DoitRun]]:
    """The fixture after `doit astest:fuzz` with a pinned seed."""
    project = copy_project("fuzz", tmp_path_factory.mktemp("fuzzed"))
    yield project, project.doit("astest:fuzz", env={"ASTEST_FUZZ_SEED": SEED})


def fuzz_result(project: Project, file_id: str) -> dict[str, Any]:
    path = project.root / f".as-test/build/default/fuzz/{file_id}.fuzz.result.json"
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def test_a_plain_doit_leaves_fuzz_targets_alone_and_lists_them(tmp_path: Path) -> None:
    project = copy_project("fuzz", tmp_path)
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.executed and not any(":fuzz" in name for name in run.executed)
    assert not (project.root / ".as-test/build/default/fuzz").exists()
    assert run.last_line == "tests: 1 passed, 0 failed, 0 skipped"
    listed = project.doit("list", "--all").stdout
    for name in ("astest:fuzz", BUGGY, "astest:fuzz:build:default:sound", "astest:fuzz:summary"):
        assert re.search(rf"^{re.escape(name)}\s", listed, re.MULTILINE), name


def test_each_campaign_passes_fails_or_crashes_on_its_own(
    fuzzed: tuple[Project, DoitRun],
) -> None:
    project, run = fuzzed
    assert run.exit_code == 1, run.stdout + run.stderr
    assert run.last_line == "fuzz: 1 passed, 2 failed, 450 runs"
    sound = fuzz_result(project, "sound")
    assert sound["passed"] and [f["runs"] for f in sound["fuzzers"]] == [200, 50]
    buggy = fuzz_result(project, "buggy")
    (fuzzer,) = buggy["fuzzers"]
    assert not buggy["passed"] and fuzzer["failed"] > 0 and fuzzer["runs"] == 200
    for failure in fuzzer["failures"]:
        assert 90 <= json.loads(failure["input"])[0] <= 99  # only the planted bug fails
        assert failure["seed"] == int(SEED) + failure["run"]
    crashing = fuzz_result(project, "crashing")
    assert not crashing["passed"] and "integer divide by zero" in crashing["error"]
    seeds = ", ".join(str(f["seed"]) for f in fuzzer["failures"][:8])
    assert f"failing seeds: {seeds}" in run.stdout


def test_a_failing_fuzzer_leaves_a_crash_record_with_its_inputs(
    fuzzed: tuple[Project, DoitRun],
) -> None:
    project, _ = fuzzed
    crashes = project.root / ".as-test/crashes/default"
    record = json.loads(
        (crashes / "buggy.fuzz.default.clamp-keeps-values-under-the-limit.json").read_text()
    )
    ours = fuzz_result(project, "buggy")["fuzzers"][0]["failures"]
    assert record["kind"] == "fuzz" and record["seed"] == ours[0]["seed"]
    assert [f["input"] for f in record["failures"]] == [json.loads(f["input"]) for f in ours]
    assert (crashes / "crashing.fuzz.default.log").read_text().startswith("timestamp: ")


def test_the_printed_repro_command_reproduces_the_failure(
    fuzzed: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(fuzzed[0], tmp_path)
    printed = re.search(r"repro \(one run\): (.+)$", fuzzed[1].stdout, re.MULTILINE)
    assert printed is not None, fuzzed[1].stdout
    *assignments, _doit, task = shlex.split(printed.group(1))
    assert task == BUGGY
    env = dict(assignment.split("=", 1) for assignment in assignments)
    replay = project.doit(task, env=env)
    first = fuzz_result(fuzzed[0], "buggy")["fuzzers"][0]["failures"][0]
    (again,) = fuzz_result(project, "buggy")["fuzzers"]
    assert again["runs"] == 1 and again["failed"] == 1, replay.stdout + replay.stderr
    assert again["failures"][0]["input"] == first["input"]
    assert f"seed {first['seed']}" in replay.stderr


def test_failures_agree_with_as_test_fuzz_on_the_same_seed(
    fuzzed: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(fuzzed[0], tmp_path)
    command = [
        "node", "node_modules/as-test/bin/index.js", "fuzz", "assembly/__fuzz__/buggy.fuzz.ts",
        "--seed", SEED, "--runs", "200",
    ]  # fmt: skip
    proc = subprocess.run(
        command, cwd=project.root, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr  # as-test finds the bug too
    records = list(project.root.glob(".as-test/crashes/buggy.fuzz.default.*.json"))
    assert len(records) == 1, proc.stdout
    theirs = json.loads(records[0].read_text())["failures"]
    ours = fuzz_result(project, "buggy")["fuzzers"][0]["failures"]
    assert [(f["run"], f["seed"], json.loads(f["input"])) for f in ours] == [
        (f["run"], f["seed"], f["input"]) for f in theirs
    ]


def test_a_random_seed_always_runs_and_a_pinned_one_may_be_cached(tmp_path: Path) -> None:
    project = copy_project("fuzz", tmp_path)
    sound = "astest:fuzz:default:sound"
    first = project.doit(sound)
    second = project.doit(sound)
    assert sound in first.executed and sound in second.executed, "random seeds never cache"
    assert fuzz_result(project, "sound")["seed_is_random"]
    pinned = {"ASTEST_FUZZ_SEED": "11"}
    assert sound in project.doit(sound, env=pinned).executed
    cached = project.doit(sound, env=pinned)
    assert sound not in cached.executed and f"-- {sound}" in cached.stdout
    assert sound in project.doit(sound, env={"ASTEST_FUZZ_SEED": "12"}).executed
    # a failing campaign with a pinned seed runs again, like a failing spec
    buggy_twice = [project.doit(BUGGY, env={"ASTEST_FUZZ_SEED": SEED}) for _ in range(2)]
    assert all(BUGGY in run.executed for run in buggy_twice)


@pytest.mark.parametrize(
    ("override", "runs"),
    [("7", [7, 7]), ("1.5x", [300, 75]), ("+10%", [220, 55]), ("+5", [205, 55])],
)
def test_run_overrides_reach_every_fuzzer(
    fuzzed: tuple[Project, DoitRun], tmp_path: Path, override: str, runs: list[int]
) -> None:
    project = clone_project(fuzzed[0], tmp_path)
    run = project.doit(
        "astest:fuzz:default:sound", env={"ASTEST_FUZZ_RUNS": override, "ASTEST_FUZZ_SEED": "3"}
    )
    assert run.exit_code == 0, run.stdout + run.stderr
    assert [f["runs"] for f in fuzz_result(project, "sound")["fuzzers"]] == runs


def test_fuzz_joins_the_plain_run_when_asked_and_the_tests_line_stays_last(
    fuzzed: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(fuzzed[0], tmp_path)
    run = project.doit(env={"ASTEST_FUZZ": "1", "ASTEST_FUZZ_SEED": SEED})
    assert run.exit_code == 1, "a failing fuzzer fails the plain run"
    assert "fuzz: 1 passed, 2 failed, 450 runs" in run.stdout
    assert run.last_line == "tests: 1 passed, 0 failed, 0 skipped"
    assert project.doit("astest", "--fuzz", env={"ASTEST_FUZZ_SEED": SEED}).exit_code == 1


def test_clean_removes_the_campaigns_outputs_and_crash_records(
    fuzzed: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(fuzzed[0], tmp_path)
    crashes = project.root / ".as-test/crashes/default"
    assert any(crashes.glob("buggy.fuzz.default.*"))
    run = project.doit("clean", "astest:fuzz")
    assert run.exit_code == 0, run.stderr
    assert not list((project.root / ".as-test/build/default/fuzz").glob("*"))
    assert not any(crashes.glob("*.fuzz.*")), "the fuzz crash records go too"
    assert (project.root / "assembly/__fuzz__/buggy.fuzz.ts").is_file()


def test_an_option_after_a_fuzz_task_name_is_an_error_not_a_silent_default(
    fuzzed: tuple[Project, DoitRun],
) -> None:
    run = fuzzed[0].doit("astest:fuzz", "--fuzz-seed", "5")
    assert run.exit_code == 3 and "Traceback" not in run.stderr
    assert "fix: `doit astest --fuzz-seed 5 astest:fuzz`, or set ASTEST_FUZZ_SEED" in run.stderr


def test_default_tasks_may_name_the_fuzz_group(tmp_path: Path) -> None:
    project = copy_project("fuzz", tmp_path)
    dodo = project.root / "dodo.py"
    dodo.write_text(
        dodo.read_text().replace(
            '{"backend": "sqlite3"}',
            '{"backend": "sqlite3", "default_tasks": ["astest", "astest:fuzz"]}',
        )
    )
    run = project.doit(env={"ASTEST_FUZZ_SEED": SEED})
    assert run.exit_code == 1, run.stdout + run.stderr  # the buggy campaign fails
    assert "astest:fuzz:default:sound" in run.executed
    assert run.last_line == "fuzz: 1 passed, 2 failed, 450 runs"


def test_info_says_why_a_campaign_runs(fuzzed: tuple[Project, DoitRun]) -> None:
    info = fuzzed[0].doit("info", BUGGY, env={"ASTEST_FUZZ_SEED": SEED}).stdout
    assert "the last campaign failed (clamp keeps values under the limit)" in info
    assert "the seed is random" in fuzzed[0].doit("info", BUGGY).stdout


def test_info_sees_an_edited_fuzz_file_before_the_campaign_runs(
    fuzzed: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(fuzzed[0], tmp_path)
    sound = "astest:fuzz:default:sound"
    pinned = {"ASTEST_FUZZ_SEED": SEED}
    assert "status     : up-to-date" in project.doit("info", sound, env=pinned).stdout
    target = project.root / "assembly/__fuzz__/sound.fuzz.ts"
    target.write_text(target.read_text() + "\n// reviewed\n")
    info = project.doit("info", sound, env=pinned)
    assert "status     : run" in info.stdout, info.stdout + info.stderr
    assert "its build is out of date: assembly/__fuzz__/sound.fuzz.ts changed" in info.stdout


HANG = """import { fuzz, FuzzSeed } from "as-test";

let spins: i64 = 0;

// Never returns: the campaign meets its time limit however fast the machine.
fuzz("spins forever", (step: i32): bool => {
  while (spins >= 0) spins += step;
  return true;
}).generate((seed: FuzzSeed, run: (step: i32) => bool): void => {
  run(seed.i32({ min: 1, max: 3 }));
});
"""
FLOOD = """import { fuzz, FuzzSeed } from "as-test";

// Prints without end: under the default timeout it meets the output limit however slow the
// machine, so no tight timeout races it.
fuzz("prints forever", (step: i32): bool => {
  const line = "x".repeat(1000);
  while (step > 0) console.log(line);
  return true;
}).generate((seed: FuzzSeed, run: (step: i32) => bool): void => {
  run(seed.i32({ min: 1, max: 3 }));
});
"""


def test_a_campaign_stopped_at_a_limit_says_so_in_the_spec_path_s_words(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    """Each limit on a campaign of its own: the time limit on one that hangs, the output limit
    on one that floods (under the default timeout). The wording is a spec's, naming the campaign
    and giving the options before the fuzz group, where doit does not drop them."""
    project = copy_project("fuzz", tmp_path, toolchain)
    fuzz_folder = project.root / "assembly/__fuzz__"
    for fixture_file in fuzz_folder.iterdir():
        fixture_file.unlink()  # the group, with its summary, is then the one campaign
    (fuzz_folder / "hang.fuzz.ts").write_text(HANG)
    hang = project.doit("astest:fuzz", env={"ASTEST_TIMEOUT": "1"})
    (fuzz_folder / "hang.fuzz.ts").unlink()
    (fuzz_folder / "flood.fuzz.ts").write_text(FLOOD)
    flood = project.doit("astest:fuzz", env={"ASTEST_OUTPUT_LIMIT": "0.1"})  # not bytes / MiB
    timed_out = [
        "test runtime timed out after 1 s (limit: --timeout / ASTEST_TIMEOUT)",
        "the campaign was stopped after 1 s of wall-clock time; if it is merely slow, raise the "
        "limit with `doit astest --timeout SECONDS astest:fuzz` or ASTEST_TIMEOUT, or run fewer "
        "iterations with ASTEST_FUZZ_RUNS",
    ]
    flooded = [
        "the campaign's output passed the limit of 0.1 MiB",
        "it wrote more than 0.1 MiB to stdout (frames and plain output) and was stopped there; "
        "if it really needs more, raise the limit with `doit astest --output-limit MIB "
        "astest:fuzz` or ASTEST_OUTPUT_LIMIT",
    ]
    for run, file_id, lines in ((hang, "hang", timed_out), (flood, "flood", flooded)):
        assert run.exit_code == 1, run.stdout + run.stderr
        assert run.last_line == "fuzz: 0 passed, 1 failed, 0 runs"
        assert "\n".join(f"  {line}" for line in lines) in run.stdout, run.stdout
        assert fuzz_result(project, file_id)["error"] == "\n".join(lines)
