"""``--test-name-pattern`` / ``-t`` end to end on both toolchains: unmatched tests count as
skipped, the run's verdict follows the rest, and the next plain run shows every test again."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.integration.conftest import Project
from tests.integration.test_standalone import astest

pytestmark = pytest.mark.integration

SPEC = "assembly/__tests__/assertions.spec.ts"  # "passes", "wrong number", "wrong string"


def test_a_pattern_counts_the_other_tests_as_skipped_and_a_plain_run_shows_all_again(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("failing")
    config_path = project.root / "as-test.config.json"
    config = json.loads(config_path.read_text())
    config["input"] = [SPEC]
    config["modes"] = {"wasi": config["modes"]["wasi"]}
    config_path.write_text(json.dumps(config))

    only_passing = project.doit("astest", "--test-name-pattern", "^assertions > passes$")
    assert only_passing.exit_code == 0, only_passing.stdout
    counts = project.spec_report(SPEC, "wasi")["counts"]
    assert (counts["tests_passed"], counts["tests_failed"]) == (1, 0)
    assert project.spec_report(SPEC, "wasi")["verdict"] == "passed"

    plain = project.doit()  # the stored result is whole: the failures show again
    assert plain.exit_code == 1, plain.stdout
    counts = project.spec_report(SPEC, "wasi")["counts"]
    assert (counts["tests_passed"], counts["tests_failed"]) == (1, 2)

    wrong = astest(project, "-t", "wrong str")
    assert wrong.exit_code == 1, wrong.stdout + wrong.stderr
    assert "wrong string" in wrong.stdout and "wrong number" not in wrong.stdout
    counts = project.spec_report(SPEC, "wasi")["counts"]
    assert (counts["tests_passed"], counts["tests_failed"]) == (0, 1)


def test_a_bad_pattern_is_one_error_line_with_its_fix(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("failing")
    run = project.doit("astest", "--test-name-pattern", "(")
    assert run.exit_code == 3
    assert "--test-name-pattern '(' is not a regular expression" in run.stderr
    assert "fix:" in run.stderr and "Traceback" not in run.stderr
