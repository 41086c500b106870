"""A report bigger than a pipe holds (64 KiB) reaches us whole through as-test's stock Node
runners, as it reaches `npx ast test`.

The codec fixture (coverage on, 964 expectations) sends a report of about 130 KiB. as-test
1.0.7's stock bindings runner writes it with one non-blocking `fs.writeSync` and drops what a
short write leaves, so it only arrives whole when the runtime's stdout is a socket, as under
as-test (Node's spawn). as-test 1.8.0's runner retries short writes and chunks the report.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from astest_tasks.model.guest_report import Suite
from astest_tasks.model.results import read_result
from tests.integration.conftest import Project, copy_project
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration

SPEC = "assembly/__tests__/codec.spec.ts"
AS_TEST_TESTS_LINE = re.compile(r"^Tests:\s+(\d+) failed, (\d+) skipped,\s+(\d+) total", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def install_stock_runners(project: Project, runners: Path) -> None:
    """The runner scripts the project's own as-test writes with `ast init` (bindings target),
    from ``runners`` (the stock_runner_scripts fixture's)."""
    (project.root / ".as-test" / "runners").mkdir(parents=True)
    runner = runners / "default.bindings.js"
    shutil.copy(runner, project.root / ".as-test" / "runners" / runner.name)


def guest_report_size(suites: tuple[Suite, ...]) -> int:
    """A lower bound of the report's size as the spec sent it: as-test's guest writes each
    suite and each expectation as a JSON object with these keys (docs/design/host-contract.md
    §4.6); we store them in a shorter form, so our file's size says nothing of it."""
    size = 0
    for suite in suites:
        head = {"description": suite.description, "kind": suite.kind, "verdict": suite.verdict}
        size += len(json.dumps(head)) + len(json.dumps(list(suite.logs)))
        for e in suite.tests:
            fields = (e.order, e.kind, e.verdict, e.left, e.right, e.instr, e.message, e.location)
            keys = ("order", "type", "verdict", "left", "right", "instr", "message", "location")
            size += len(json.dumps(dict(zip(keys, fields, strict=True))))
        size += guest_report_size(suite.suites)
    return size


def ast_test(project: Project) -> tuple[int, int, int]:
    """`npx ast test` on the project: (exit code, tests failed, tests in all)."""
    proc = subprocess.run(
        ["npx", "ast", "test"],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    output = ANSI.sub("", proc.stdout + proc.stderr)
    totals = AS_TEST_TESTS_LINE.search(output)
    assert totals is not None, output
    return proc.returncode, int(totals.group(1)), int(totals.group(3))


def test_a_report_over_100_kib_arrives_whole_through_the_stock_node_runner(
    tmp_path: Path, toolchain: Toolchain, stock_runner_scripts: Callable[[Toolchain], Path]
) -> None:
    runners = stock_runner_scripts(toolchain)
    ours = copy_project("codec", tmp_path / "ours", toolchain)
    install_stock_runners(ours, runners)
    theirs = copy_project("codec", tmp_path / "theirs", toolchain)
    install_stock_runners(theirs, runners)

    run = ours.doit()
    as_test_exit, as_test_failed, as_test_total = ast_test(theirs)

    assert as_test_exit == 0 and as_test_failed == 0, "as-test itself should pass this spec"
    assert run.exit_code == as_test_exit, run.stdout + run.stderr
    assert "missing report payload" not in run.stdout
    entry = ours.spec_report(SPEC, "default")
    assert entry["verdict"] == "passed", json.dumps(entry)[:2000]
    counts = entry["counts"]
    assert counts["tests_passed"] + counts["tests_failed"] == as_test_total == 964
    record = read_result(ours.root / ".as-test" / "build" / "default" / "codec.result.jsonl")
    assert record is not None
    assert guest_report_size(record.suites) > 100 * 1024, "the report no longer tests a big one"
