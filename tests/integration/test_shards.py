"""CI shards: the shards of N partition the suite, and their merge equals an unsharded run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import DoitRun, Project, clone_project
from tests.output.formats.test_ctrf import validated_ctrf
from tests.output.formats.test_registry import read_html

# Sharding and merging are ours; the counts they add up are checked per as-test version in the
# agreement tests.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]


def merge(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "astest_tasks", "merge", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def ctrf_test_key(test: dict[str, Any]) -> tuple[str, ...]:
    return (*test["suite"], test["name"], test["status"], test["filePath"])


@pytest.mark.parametrize("count", [2, 3])
def test_shards_partition_the_suite_and_merge_to_the_unsharded_totals(
    built_failing: tuple[Project, DoitRun], tmp_path: Path, count: int
) -> None:
    unsharded_project, unsharded = built_failing
    whole = unsharded_project.report()
    reports = []
    seen: list[tuple[str, str]] = []
    for index in range(1, count + 1):
        # Every shard on a machine of its own: a clone of the built project.
        shard = clone_project(unsharded_project, tmp_path / f"shard{index}")
        # The build fixture's timeout (part of the run key): its hang spec stops after 2 s.
        run = shard.doit("astest", f"--shard={index}/{count}", env={"ASTEST_TIMEOUT": "2"})
        report = shard.root / f".as-test/shards/{index}-of-{count}/report.json"
        assert report.is_file(), run.stdout + run.stderr
        document = json.loads(report.read_text())
        pairs = len(whole["specs"])
        split = document["shard"].pop("split")
        assert document["shard"] == {"index": index, "count": count, "pairs": pairs}
        assert split.startswith("hash:")
        assert (report.parent / "junit.xml").is_file()
        seen += [(spec["mode"], spec["spec_id"]) for spec in document["specs"]]
        reports.append(str(report))
    assert sorted(seen) == sorted((s["mode"], s["spec_id"]) for s in whole["specs"])
    assert len(seen) == len(set(seen)), "no spec in two shards"

    merged = merge(tmp_path, *reports, "--output", "merged")
    assert merged.returncode == unsharded.exit_code == 1
    assert merged.stdout.rstrip().splitlines()[-1] == unsharded.last_line
    totals = json.loads((tmp_path / "merged/report.json").read_text())["totals"]
    assert totals["tests"] == whole["totals"]["tests"]
    assert totals["files"] == whole["totals"]["files"]
    assert (tmp_path / "merged/junit.xml").is_file()
    # The merged CTRF is the unsharded run's: valid, with the same test cases (in shard order;
    # a compile failure's message names the folder it ran in) and totals.
    merged_ctrf = validated_ctrf(tmp_path / "merged/report.ctrf.json")["results"]
    whole_ctrf = validated_ctrf(unsharded_project.root / ".as-test/report.ctrf.json")["results"]
    assert sorted(map(ctrf_test_key, merged_ctrf["tests"])) == sorted(
        map(ctrf_test_key, whole_ctrf["tests"])
    )
    for key in ("tests", "passed", "failed", "skipped", "suites", "extra"):
        assert merged_ctrf["summary"][key] == whole_ctrf["summary"][key], key
    # One page for the whole run: a row per spec file of every shard.
    rows = read_html(tmp_path / "merged/html/index.html")
    assert rows == len({spec["file"] for spec in whole["specs"]})


def test_merge_refuses_a_missing_shard(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    shard = clone_project(built_passing[0], tmp_path)
    assert shard.doit("astest", "--shard=1/2").exit_code == 0
    refused = merge(tmp_path, str(shard.root / ".as-test/shards/1-of-2/report.json"))
    assert refused.returncode == 3
    assert refused.stderr.startswith("ERROR: shard 2/2 is missing")


def test_durations_balance_the_shards(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    durations = project.root / "durations.json"
    durations.write_text((project.root / ".as-test/report.json").read_text())
    picked = []
    for index in (1, 2):
        run = project.doit("astest", f"--shard={index}/2", "--shard-durations=durations.json")
        assert run.exit_code == 0, run.stdout + run.stderr
        report = json.loads(
            (project.root / f".as-test/shards/{index}-of-2/report.json").read_text()
        )
        picked.append({(s["mode"], s["spec_id"]) for s in report["specs"]})
    assert picked[0] and picked[1] and not picked[0] & picked[1]
