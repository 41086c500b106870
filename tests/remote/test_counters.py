from __future__ import annotations

import pytest

from astest_tasks.remote.counters import RemoteCounters, RemoteCounts, render_remote_line


def test_the_summary_line_reads_as_in_the_issue() -> None:
    line = render_remote_line(RemoteCounts(hits=18, misses=2, uploaded=2, uploaded_bytes=1_234_567))
    assert line == "remote cache: 18 hits, 2 misses, 2 uploaded (1.2 MB)"


@pytest.mark.parametrize(
    ("counts", "line"),
    [
        (RemoteCounts(), "remote cache: 0 hits, 0 misses, 0 uploaded (0 B)"),
        (RemoteCounts(1, 1, 1, 999), "remote cache: 1 hit, 1 miss, 1 uploaded (999 B)"),
        (RemoteCounts(0, 3, 3, 45_600), "remote cache: 0 hits, 3 misses, 3 uploaded (45.6 kB)"),
        (RemoteCounts(0, 3, 3, 999_990), "remote cache: 0 hits, 3 misses, 3 uploaded (1.0 MB)"),
    ],
)
def test_counts_and_sizes(counts: RemoteCounts, line: str) -> None:
    assert render_remote_line(counts) == line


def test_counters_add_up() -> None:
    counters = RemoteCounters()
    counters.hit()
    counters.miss()
    counters.miss()
    counters.uploaded(100)
    counters.uploaded(50)
    assert counters.snapshot() == RemoteCounts(hits=1, misses=2, uploaded=2, uploaded_bytes=150)
