"""``!`` patterns in ``input`` agree with the real as-test, file by file and mode by mode.

The fixture's base ``input`` excludes ``02-excluded`` (a failing spec) and its wasi mode also
excludes ``03-not-in-wasi`` (failing too) with a slashless pattern, which only a mode's rule
matches by name. as-test 1.8 runs neither where excluded; as-test 1.0.7 knows no exclusions (nor a
mode's ``input``, which it rejects), runs both everywhere, and so must we, with a warning.
The two matchers are also held against the npm packages as-test 1.8 installs, over a table of
patterns a user may write.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from astest_tasks.config.input_exclusions import glob_ignores, minimatch_excludes
from tests.integration.as_test_cli import run_as_test_in_place, run_as_test_logged
from tests.integration.conftest import ANSI, Project, copy_project, require_toolchain
from tests.integration.test_changed import commit_all, git, git_environment
from tests.integration.toolchains import AS_TEST_1_8, Toolchain

pytestmark = pytest.mark.integration

RESOLVED = re.compile(r"^Resolved files:\n((?:  - .*\n)+)", re.MULTILINE)


def exclusions_project(tmp_path: Path, toolchain: Toolchain) -> Project:
    project = copy_project("exclusions", tmp_path, toolchain)
    if not toolchain.is_1_8:
        config_path = project.root / "as-test.config.json"
        config = json.loads(config_path.read_text())
        for mode in config["modes"].values():
            mode.pop("input", None)  # as-test 1.0.7: "$.modes.wasi.input: unknown property"
        config_path.write_text(json.dumps(config, indent=2))
    return project


def test_each_spec_runs_where_as_test_runs_it_with_its_verdict(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = exclusions_project(tmp_path, toolchain)
    ours = project.doit()
    whole, theirs = run_as_test_logged(project.root, ["test"], toolchain, tmp_path / "as-test")
    assert ours.exit_code == 1 and whole.exit_code == 1, ours.stdout + whole.output
    mine = {(entry["file"], entry["mode"]): entry for entry in project.report()["specs"]}
    assert set(mine) == set(theirs), (sorted(mine), sorted(theirs))
    if toolchain.is_1_8:
        for key, entry in mine.items():
            tests = theirs[key].totals["tests"]
            counts = entry["counts"]
            assert entry["verdict"] == theirs[key].verdict, theirs[key].where()
            assert (counts["tests_passed"], counts["tests_failed"]) == (tests.passed, tests.failed)
    else:  # 1.0.7's verdict and counts of one file blur with the files before it in a run
        kinds = ("tests_passed", "tests_failed", "tests_skipped")
        total = sum(entry["counts"][kind] for entry in mine.values() for kind in kinds)
        theirs_total = whole.totals["tests"]
        assert total == theirs_total.passed + theirs_total.failed + theirs_total.skipped
    excluded = "assembly/__tests__/02-excluded.spec.ts"
    if toolchain.is_1_8:
        assert not any(key[0] == excluded for key in mine)
        assert ("assembly/__tests__/03-not-in-wasi.spec.ts", "wasi") not in mine
        assert 'not run in mode wasi (its input\'s "!03-*"): 03-not-in-wasi' in ours.stdout
    else:
        assert (excluded, "wasi") in mine and (excluded, "bindings") in mine
        assert '"!**/02-*" excludes nothing under as-test 1.0.7' in ours.stderr


@pytest.mark.toolchains("1.8.0")
def test_list_resolves_the_files_as_test_resolves(tmp_path: Path, toolchain: Toolchain) -> None:
    project = exclusions_project(tmp_path, toolchain)
    ours = project.doit("astest", "--list")
    whole, _ = run_as_test_logged(project.root, ["test"], toolchain, tmp_path / "as-test-run")
    listed = run_as_test_in_place(project.root, ["test", "--list"], toolchain)
    mine = RESOLVED.search(ANSI.sub("", ours.stdout))
    theirs = RESOLVED.search(listed.output)
    assert mine is not None and theirs is not None, ours.stdout + listed.output
    assert mine.group(1) == theirs.group(1)
    assert "02-excluded" not in mine.group(1)
    assert '03-not-in-wasi.spec.wasm  (excluded by "!03-*": not built or run)' in ours.stdout
    assert whole.exit_code == 1  # the listing is of the config the run above ran


# Paths a project may hold, and patterns a user may write; each pair is judged by the npm glob
# (the base input) and minimatch (a mode's patterns) of as-test 1.8's own install.
PATHS = [
    "assembly/__tests__/01-a.spec.ts",
    "assembly/__tests__/03-c.spec.ts",
    "assembly/__tests__/sub/04-d.spec.ts",
    "assembly/__tests__/.hidden/05-e.spec.ts",
    "assembly/__tests__/__tmp_06.spec.ts",
    "assembly/__tests__/unmock.spec.ts",
    "assembly/__tests__/Caps/07-G.spec.ts",
]
PATTERNS = [
    "!03-*",
    "!**/03-*",
    "!**/__tmp_*",
    "!**/unmock.spec.ts",
    "!assembly/__tests__/03-c.spec.ts",
    "!./assembly/__tests__/03-c.spec.ts",
    "!assembly/__tests__/sub",
    "!assembly/__tests__/sub/**",
    "!**/sub/**",
    "!**/.hidden/**",
    "!**/.*/**",
    "!*.spec.ts",
    "!**/*.spec.ts",
    "!**/0[13]-*",
    "!**/0[!13]-*",
    "!**/{01,03}-*",
    "!**/+(01|03)-*",
    "!**/!(01-a).spec.ts",
    "!**/?(0)3-c.spec.ts",
    "!**/caps/**",
    "!**/C*/*",
    "!assembly/*/03-c.spec.ts",
    "!assembly/**/03-c.spec.ts/",
    "!sub/*",
    "!!**/03-*",
    "!#03-*",
    "!",
    "!assembly/__tests__/./03-c.spec.ts",
    "!assembly/x/../__tests__/03-c.spec.ts",
    "!.//assembly/**",
    "!{03-c.spec.ts,x/y}",
]

NODE_JUDGE = """
import { createRequire } from "node:module";
const require = createRequire(process.argv[1] + "/");
const { glob } = require("glob");
const { minimatch } = require("minimatch");
const [paths, patterns] = JSON.parse(process.argv[2]);
const out = {};
for (const pattern of patterns) {
  const kept = await glob(["assembly/**/*.spec.ts"], { ignore: [pattern.slice(1)], dot: true });
  out[pattern] = {
    glob: paths.filter((p) => !kept.includes(p)),
    minimatch: paths.filter((p) => minimatch(p, pattern.slice(1), { dot: true, matchBase: true })),
  };
}
console.log(JSON.stringify(out));
"""


def test_both_matchers_judge_as_the_npm_packages_do(tmp_path: Path) -> None:
    require_toolchain(AS_TEST_1_8)
    for path in PATHS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("// spec\n")
    judged = subprocess.run(
        [
            "node",
            "--input-type=module",
            "-e",
            NODE_JUDGE,
            str(AS_TEST_1_8.node_modules.parent),
            json.dumps([PATHS, PATTERNS]),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    expected = json.loads(judged.stdout)
    for pattern in PATTERNS:
        ignored = [path for path in PATHS if glob_ignores(path, str(tmp_path / path), pattern)]
        by_mode = [path for path in PATHS if minimatch_excludes(path, pattern)]
        assert ignored == expected[pattern]["glob"], f"glob ignore of {pattern!r}"
        assert by_mode == expected[pattern]["minimatch"], f"minimatch of {pattern!r}"


@pytest.mark.toolchains("1.8.0")
def test_shards_and_changed_never_pick_an_excluded_spec(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = exclusions_project(tmp_path, toolchain)
    run = project.doit()
    whole = set(project.verdicts())
    assert run.exit_code == 1 and len(whole) == 5, run.stdout
    sharded: set[tuple[str, str]] = set()
    for index in (1, 2):
        assert project.doit("astest", f"--shard={index}/2").exit_code in (0, 1)
        report = project.root / f".as-test/shards/{index}-of-2/report.json"
        specs = json.loads(report.read_text())["specs"]
        sharded |= {(entry["spec_id"], entry["mode"]) for entry in specs}
    assert sharded == whole

    (project.root / ".gitignore").write_text("node_modules\n.doit.db*\n.as-test/\n")
    git(project, "init", "-q")
    commit_all(project, "the exclusions fixture")
    for spec in ("02-excluded", "03-not-in-wasi"):
        path = project.root / f"assembly/__tests__/{spec}.spec.ts"
        path.write_text(path.read_text() + "// edited\n")
    edited = project.doit("astest", "--changed=HEAD", env=git_environment(project))
    ran = sorted(t for t in edited.executed if t.startswith("astest:run:"))
    assert ran == ["astest:run:bindings:03-not-in-wasi"], edited.stdout
