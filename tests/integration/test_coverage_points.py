"""coverage/points.py against the real ``describeCoveragePoint`` of each as-test toolchain: every
line of a real-looking library, at several columns, as every point type, run through as-test's own
``bin/coverage-points.js`` by Node and through ours with that version's rules."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.coverage.points import SourceLines, describe_point
from tests.coverage.test_points import SOURCE, TYPED_SOURCE
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration

# Every type either transform emits, and one no transform does.
POINT_TYPES = (
    *("Function", "Method", "Constructor", "Expression", "Block", "Variable", "Property", "Call"),
    *("Parameter", "DefaultValue", "Ternary", "LogicalBranch", "IfBranch", "Assignment"),
    *("Return", "Loop", "Throw", "Switch", "Unknown"),
)
EXTRA_SOURCE = """\
export class Ring<T> {
  private head: i32 = 0;
  push(value: T): void {
    this.items[this.head++ % this.capacity] = value;
  }
  get size(): i32 { return this.count; }
  peek(): T | null { return this.count ? this.items[this.head] : null; }
}
\texport function hash(key: string, seed: u32 = 0x9e3779b9): u32 {
    while (i < len && !done) i += step(i) ?: 1;
    x ??= fallback(a, (b: i32) => b * 2);
    return select<i32>(low, high, value < pivot ? low : high);
"""
SCRIPT = """
import { describeCoveragePoint } from %s;
import { readFileSync } from "fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(([file, line, column, type]) => {
  const info = describeCoveragePoint(file, line, column, type);
  return [info.displayType, info.subjectName ?? "", info.visible];
});
process.stdout.write(JSON.stringify(out));
"""


def test_our_guess_is_as_tests_own(toolchain: Toolchain, tmp_path: Path) -> None:
    files = {"a.ts": SOURCE, "lib.ts": TYPED_SOURCE, "ring.ts": EXTRA_SOURCE}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cases = [
        (name, number, column, kind)
        for name, text in files.items()
        for number, line in enumerate(text.splitlines(), start=1)
        for column in sorted({1, 3, 5, 9, 12, 16, 20, 23, 30, 35, 46, 60, len(line)})
        for kind in POINT_TYPES
    ]
    module = toolchain.node_modules / "as-test" / "bin" / "coverage-points.js"
    node = subprocess.run(
        [
            "node",
            "--input-type=module",
            "-e",
            SCRIPT % json.dumps(module.as_uri()),
        ],
        input=json.dumps(cases),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert node.returncode == 0, node.stderr
    theirs = json.loads(node.stdout)
    typed = AsTestRules.parse(toolchain.as_test).typed_coverage_points
    assert typed is toolchain.is_1_8
    sources = SourceLines(tmp_path)
    ours = [list(_described(sources, case, typed)) for case in cases]
    assert len(theirs) == len(cases) > 1000
    mismatches = [(case, o, t) for case, o, t in zip(cases, ours, theirs, strict=True) if o != t]
    assert not mismatches, mismatches[:10]


def _described(
    sources: SourceLines, case: tuple[str, int, int, str], typed: bool
) -> tuple[str, str, str]:
    info = describe_point(sources, *case, typed_points=typed)
    return info.label, info.name, info.snippet
