"""CI shards balanced by the durations ``astest merge`` published to the shared cache: a four-shard
workflow on real asc, as-test, wasmtime and Debian's nginx (tests/nginx_cache.py).

The suite is bench/generate_suite.py's 50 specs, each with one more test that loops a number of
times picked from a seeded list (0 to 16 million): spec costs from about 0.2 s to 0.8 s, so a
split by hash is visibly unbalanced. Every shard runs on a "machine" of its own (a fresh copy of
the project, nothing built), as a CI job does.

A second workflow's shards take their builds and passing runs from the cache (as CI does on an
unchanged suite), so the durations they report are the recorded ones: the balance measured here
is the split's, not this machine's timing noise.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.config.shards import assign_shards
from tests.integration.conftest import REPO, Project
from tests.integration.toolchains import Toolchain
from tests.nginx_cache import CacheServer

pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.0.7")]

SPECS = 50
SHARDS = 4
BALANCE = 1.15  # the slowest shard's summed duration at most this times the mean
SIGNING_KEY = "workflow-signing-key"
LOOPS = (0, 0, 1, 2, 4, 8, 16)  # millions of iterations of the added test
PUBLISHED = f"shard durations of {SPECS} pairs published"


def work_test(millions: int) -> str:
    return (
        '\ntest("work", () => {\n  let x: i64 = 0;\n'
        f"  for (let i: i64 = 0; i < {millions * 1_000_000}; i++) {{\n"
        "    x = (x * 31 + i) % 1000003;\n  }\n"
        "  expect<i64>(x).toBeGreaterOrEqualTo(0);\n});\n"
    )


@pytest.fixture
def suite(tmp_path: Path, toolchain: Toolchain) -> Path:
    """The generated suite with costs that vary from spec to spec (the same on every run)."""
    root = tmp_path / "origin" / "suite"
    subprocess.run(
        [sys.executable, str(REPO / "bench/generate_suite.py"), str(SPECS), str(root)],
        check=True,
        capture_output=True,
    )
    (root / "node_modules").symlink_to(toolchain.node_modules)
    chosen = random.Random(41)
    for spec in sorted((root / "assembly/__tests__").glob("*.spec.ts")):
        spec.write_text(spec.read_text() + work_test(chosen.choice(LOOPS)))
    return root


class Workflow:
    """One CI workflow: each shard on a fresh copy of ``origin``, then ``astest merge``."""

    def __init__(self, origin: Path, base: Path, server: CacheServer) -> None:
        self.origin, self.base = origin, base
        self.env = {
            "ASTEST_REMOTE_CACHE": server.url(),
            "ASTEST_REMOTE_CACHE_SIGNING_KEY": SIGNING_KEY,
        }
        self.reports: list[Path] = []

    def shard(self, index: int, count: int = SHARDS) -> dict[str, Any]:
        machine = self.base / f"shard{index}"
        shutil.copytree(self.origin, machine, symlinks=True)
        run = Project(machine).doit("astest", f"--shard={index}/{count}", env=self.env)
        assert run.exit_code == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert "WARNING" not in run.stderr, run.stderr
        report = machine / f".as-test/shards/{index}-of-{count}/report.json"
        self.reports.append(report)
        document: dict[str, Any] = json.loads(report.read_text())
        return document

    def merge(self) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "astest_tasks", "merge", *map(str, self.reports)],
            cwd=self.base,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )


def pairs_of(document: dict[str, Any]) -> list[str]:
    return [f"{spec['mode']}:{spec['spec_id']}" for spec in document["specs"]]


def load(document: dict[str, Any]) -> float:
    return float(sum(spec["duration_s"] for spec in document["specs"]))


def run_workflow(origin: Path, base: Path, server: CacheServer) -> list[dict[str, Any]]:
    workflow = Workflow(origin, base, server)
    documents = [workflow.shard(index) for index in range(1, SHARDS + 1)]
    merged = workflow.merge()
    assert merged.returncode == 0, merged.stderr
    assert PUBLISHED in merged.stderr, merged.stderr
    return documents


def test_the_next_workflows_shards_balance_by_the_durations_the_merge_published(
    suite: Path, tmp_path: Path, cache_server: CacheServer
) -> None:
    first = run_workflow(suite, tmp_path / "first", cache_server)
    assert all(d["shard"]["split"].startswith("hash:") for d in first), "nothing published yet"
    published = merged_durations_of(tmp_path / "first")

    second = run_workflow(suite, tmp_path / "second", cache_server)
    splits = {d["shard"]["split"] for d in second}
    assert len(splits) == 1 and splits.pop().startswith("durations:")
    pairs = [pair for document in second for pair in pairs_of(document)]
    assert sorted(pairs) == sorted(published) and len(pairs) == len(set(pairs)) == SPECS
    loads = [load(document) for document in second]
    assert max(loads) <= BALANCE * statistics.mean(loads), loads
    # The same times split by hash miss the bar: the published durations are what balance.
    hashed = assign_shards(list(published), SHARDS)
    hashed_loads = [
        sum(t for pair, t in published.items() if hashed[pair] == k) for k in range(1, 5)
    ]
    assert max(hashed_loads) > BALANCE * statistics.mean(hashed_loads), hashed_loads
    print(f"shard loads by hash {hashed_loads}, by published durations {loads}")


def merged_durations_of(base: Path) -> dict[str, float]:
    merged = json.loads((base / ".as-test/merged/report.json").read_text())
    return {f"{s['mode']}:{s['spec_id']}": float(s["duration_s"]) for s in merged["specs"]}


def test_a_merge_published_between_two_shards_starts_gets_the_workflow_refused(
    suite: Path, tmp_path: Path, cache_server: CacheServer
) -> None:
    run_workflow(suite, tmp_path / "first", cache_server)
    # The next commit adds a spec: the grown suite's new pair counts as the median.
    grown = tmp_path / "grown" / "suite"
    shutil.copytree(suite, grown, symlinks=True)
    specs = grown / "assembly/__tests__"
    first_spec = sorted(specs.glob("*.spec.ts"))[0]
    (specs / "added.spec.ts").write_text(first_spec.read_text())
    racing = Workflow(grown, tmp_path / "racing", cache_server)
    early = [racing.shard(1), racing.shard(2)]
    # Meanwhile another workflow, where one spec became far slower, merges and publishes.
    slower = tmp_path / "slower" / "suite"
    shutil.copytree(suite, slower, symlinks=True)
    heavy = sorted((slower / "assembly/__tests__").glob("*.spec.ts"))[-1]
    heavy.write_text(heavy.read_text() + work_test(80))
    other = Workflow(slower, tmp_path / "other", cache_server)
    other.shard(1, count=1)
    assert other.merge().returncode == 0
    late = [racing.shard(3), racing.shard(4)]
    assert early[0]["shard"]["split"] == early[1]["shard"]["split"]
    assert late[0]["shard"]["split"] == late[1]["shard"]["split"] != early[0]["shard"]["split"]

    refused = racing.merge()
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert refused.stderr.startswith("ERROR: the shards cut the suite in different ways (1/4,")
    assert "fix: run every shard of the workflow again" in refused.stderr
    assert len(refused.stderr.splitlines()) == 1, "a refused merge publishes nothing"

    # Run again, every shard after the publication: they agree, and cover the grown suite once.
    again = Workflow(grown, tmp_path / "again", cache_server)
    documents = [again.shard(index) for index in range(1, SHARDS + 1)]
    pairs = [pair for document in documents for pair in pairs_of(document)]
    assert len(pairs) == len(set(pairs)) == SPECS + 1 and "default:added" in pairs
    merged = again.merge()
    assert merged.returncode == 0, merged.stderr
    assert f"shard durations of {SPECS + 1} pairs published" in merged.stderr
