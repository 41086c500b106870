"""Specs that hit a limit fail with a message naming it and how to raise it; the rest run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.model.results import read_result
from astest_tasks.run.wasm_compiler import SWITCH_VARIABLE
from tests.integration.conftest import DoitRun, Project, copy_project

# One worker runs the whole module (pytest-xdist's loadgroup): its module-scoped projects are
# built once, not once per worker.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("limits")]


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, DoitRun]:
    """The memory and output limits, under the default timeout: a flood or a runaway
    allocation must fail at its own limit however slowly a loaded machine runs it, so no tight
    timeout races them (the timeouts are checked apart, on the hanging spec alone)."""
    project = copy_project("limits", tmp_path_factory.mktemp("limits"))
    spec = project.root / "assembly/__tests__/fine.spec.ts"
    spec.write_text(
        'import { describe, expect, test } from "as-test";\n'
        'describe("fine", () => { test("adds", () => { expect(1 + 1).toBe(2); }); });\n'
    )
    run = project.doit(
        "astest", "--spec", "fine,flood,hungry", "--memory-limit", "16", "--output-limit", "0.1"
    )
    return project, run


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, DoitRun]:
    """The hanging spec alone, with a timeout per mode: it never ends, so it always meets it."""
    project = copy_project("limits", tmp_path_factory.mktemp("timed"))
    # "--timeout=…" in one word: doit reads a separate word with "=" as one of its variables.
    return project, project.doit("astest", "--spec", "hang", "--timeout=30,wasi=1,bindings=2")


def failure_text(project: Project, spec: str, mode: str) -> str:
    return json.dumps(project.spec_report(f"assembly/__tests__/{spec}.spec.ts", mode))


@pytest.mark.parametrize("mode", ["wasi", "bindings"])
def test_a_spec_that_floods_its_output_is_stopped_at_the_output_limit(
    limited: tuple[Project, DoitRun], mode: str
) -> None:
    project, _ = limited
    text = failure_text(project, "flood", mode)
    # 0.1 MiB is 104,857.6 bytes: the message gives the limit as written, not as bytes / MiB
    assert "the spec's output passed the limit of 0.1 MiB" in text
    assert "--output-limit MIB" in text


@pytest.mark.parametrize("mode", ["wasi", "bindings"])
def test_a_spec_that_keeps_allocating_fails_at_the_memory_limit(
    limited: tuple[Project, DoitRun], mode: str
) -> None:
    project, _ = limited
    text = failure_text(project, "hungry", mode)
    assert "the spec ran out of memory at the limit of 16 MiB" in text
    assert "--memory-limit MIB" in text


def test_each_mode_gets_its_own_timeout(timed: tuple[Project, DoitRun]) -> None:
    project, run = timed
    assert run.exit_code == 1
    assert "timed out after 1 s" in failure_text(project, "hang", "wasi")
    assert "timed out after 2 s" in failure_text(project, "hang", "bindings")
    assert run.last_line == "tests: 0 passed, 2 failed, 0 skipped"


def test_the_other_specs_still_run_and_pass(limited: tuple[Project, DoitRun]) -> None:
    project, run = limited
    assert run.exit_code == 1
    verdicts = project.verdicts()
    assert verdicts[("fine", "wasi")] == verdicts[("fine", "bindings")] == "passed"
    assert run.last_line == "tests: 2 passed, 4 failed, 0 skipped"


@pytest.fixture(scope="module")
def recursing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, DoitRun]:
    """A recursion 7,000 calls deep, and one without end; wasmtime's compiler as chosen."""
    project = copy_project("limits", tmp_path_factory.mktemp("recursing"))
    return project, project.doit("astest", "--spec", "deep,endless")


def test_a_recursion_that_fits_either_compilers_stack_passes(
    recursing: tuple[Project, DoitRun],
) -> None:
    """A spec's first run is compiled by Winch, whose larger frames run out of stack here; the
    run is then run again under Cranelift, as run/wasm_compiler.py says."""
    project, run = recursing
    verdicts = project.verdicts()
    assert verdicts[("deep", "wasi")] == verdicts[("deep", "bindings")] == "passed", run.stdout
    assert run.last_line == "tests: 2 passed, 2 failed, 0 skipped"


@pytest.mark.parametrize("mode", ["wasi", "bindings"])
def test_a_recursion_without_end_fails_as_out_of_stack(
    recursing: tuple[Project, DoitRun], mode: str
) -> None:
    project, _ = recursing
    text = failure_text(project, "endless", mode)
    assert "the module trapped: call stack exhausted" in text
    assert "running when it stopped: endless > never reaches the bottom" in text


def test_the_deep_recursion_runs_out_of_winchs_stack_alone(tmp_path: Path) -> None:
    """What makes the test above worth having: under Winch alone the same spec fails."""
    project = copy_project("limits", tmp_path)
    run = project.doit("astest", "--spec", "deep", env={SWITCH_VARIABLE: "winch"})
    assert run.exit_code == 1, "the fixture no longer runs out of Winch's stack: deepen it"
    assert "call stack exhausted" in failure_text(project, "deep", "wasi")


def test_a_mode_that_does_not_exist_in_a_limit_is_one_clear_error(tmp_path: Path) -> None:
    project = copy_project("limits", tmp_path)
    run = project.doit("astest", "--timeout=10,wsai=30")
    assert run.exit_code == 3
    assert "--timeout '10,wsai=30': there is no mode 'wsai' (modes: bindings, default, wasi)" in (
        run.stderr
    )


@pytest.mark.slow
def test_a_spec_that_runs_20_s_passes_under_the_default_timeout(tmp_path: Path) -> None:
    """A real spec that stretches a key for about 20 s of CPU (more on a loaded machine) passes
    with default settings, as under as-test; a lower limit then names its last passing time."""
    project = copy_project("slow", tmp_path)
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    passed = project.spec_report("assembly/__tests__/stretch.spec.ts", "default")
    assert passed["verdict"] == "passed"
    assert passed["duration_s"] > 10, "the fixture no longer takes long: tune its rounds"
    record = project.root / ".as-test/build/default/stretch.result.jsonl"
    stored = read_result(record)
    assert stored is not None
    last_pass_s = stored.duration_s

    cut_short = project.doit("astest", "--timeout=2")
    assert cut_short.exit_code == 1
    failed = project.spec_report("assembly/__tests__/stretch.spec.ts", "default")
    assert failed["error"] == (
        "test runtime timed out after 2 s (limit: --timeout / ASTEST_TIMEOUT; "
        f"it passed in {last_pass_s:.1f} s last time)"
    )
