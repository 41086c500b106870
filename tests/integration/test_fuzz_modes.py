"""Each mode fuzzes with its own ``fuzz`` block, as ``ast fuzz --mode`` of as-test 1.8 does: a
mode's ``fuzz`` keys replace the base's one by one (``mergeFuzzConfig``, 1.0.14+), also in a mode
given as a config file of its own; a mode without one inherits the base's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.integration.as_test_cli import run_as_test_in_place
from tests.integration.conftest import copy_project
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration

SEED = "790229808"
CONFIG = {
    "input": ["assembly/__tests__/*.spec.ts"],
    "output": ".as-test/",
    "fuzz": {"input": ["./assembly/__fuzz__/sound.fuzz.ts"], "runs": 30},
    "modes": {
        "inline": {
            "buildOptions": {"target": "wasi"},
            "fuzz": {"input": ["./assembly/__fuzz__/buggy.fuzz.ts"], "runs": 7},
        },
        "fromfile": "./as-test.config.fromfile.json",
        "inherits": {"buildOptions": {"target": "wasi"}},
    },
}
FROM_FILE = {"buildOptions": {"target": "wasi"}, "fuzz": {"runs": 12}}
FILE_LINE = re.compile(r"^ (PASS|FAIL)  (\S+\.fuzz\.ts)\b", re.MULTILINE)
TOTAL_LINE = re.compile(r"^Fuzz:\s+\d+ failed,\s+\d+ skipped,\s+(\d+) total", re.MULTILINE)


@pytest.mark.toolchains("1.8.0")
def test_each_mode_fuzzes_its_own_files_and_runs_as_ast_fuzz_does(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = copy_project("fuzz", tmp_path, toolchain)
    (project.root / "as-test.config.json").write_text(json.dumps(CONFIG, indent=2))
    (project.root / "as-test.config.fromfile.json").write_text(json.dumps(FROM_FILE))
    for mode in CONFIG["modes"]:
        ours = project.doit("astest", "--mode", mode, "--fuzz-seed", SEED, "astest:fuzz")
        results = sorted((project.root / f".as-test/build/{mode}/fuzz").glob("*.result.json"))
        our_files = sorted(json.loads(path.read_text())["file"] for path in results)
        our_runs = sum(
            fuzzer["runs"] for path in results for fuzzer in json.loads(path.read_text())["fuzzers"]
        )
        theirs = run_as_test_in_place(
            project.root, ["fuzz", "--mode", mode, "--seed", SEED], toolchain
        )
        output = theirs.output
        total = TOTAL_LINE.search(output)
        assert total is not None, output
        assert our_files == sorted(name for _, name in FILE_LINE.findall(output)), (mode, output)
        assert our_runs == int(total.group(1)), (mode, ours.stdout, output)
        assert ours.exit_code == theirs.exit_code, (mode, ours.stdout, output)


@pytest.mark.toolchains("1.8.0")
def test_fuzzer_reports_the_named_fuzzers_as_ast_fuzz_does(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = copy_project("fuzz", tmp_path, toolchain)
    config = {**CONFIG, "modes": {}}
    (project.root / "as-test.config.json").write_text(json.dumps(config))
    ours = project.doit(
        "astest", "--fuzzer", "abs is never negative", "--fuzz-seed", SEED, "astest:fuzz"
    )
    assert ours.exit_code == 0, ours.stdout
    assert "1 fuzzer, 50 runs" in ours.stdout
    theirs = run_as_test_in_place(
        project.root, ["fuzz", "--fuzzer", "abs-is-never-negative", "--seed", SEED], toolchain
    )
    total = TOTAL_LINE.search(theirs.output)
    assert total is not None and int(total.group(1)) == 50, theirs.output
    typo = project.doit("astest", "--fuzzer", "nope", "--fuzz-seed", SEED, "astest:fuzz")
    assert typo.exit_code == 1
    assert 'No fuzz targets matched "nope" in sound.fuzz.ts.' in typo.stdout
