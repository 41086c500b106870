"""Merging shard reports: one summary, and a refusal for reports that do not add up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.config.shards import HASH_SPLIT, ShardPart
from astest_tasks.core.errors import UserError
from astest_tasks.model.results import SpecIdentity, Stage, failure_result
from astest_tasks.output.console import Shown
from astest_tasks.output.formats import report_file_names
from astest_tasks.output.merge_reports import merge_reports
from astest_tasks.output.summary import write_reports
from tests.fifo_guard import fifo_symlink, without_waiting

KEY = "ab" * 32  # a remote key as remote/shard_durations.durations_key makes it


def shard_report(
    folder: Path,
    specs: list[str],
    shard: tuple[int, int, int] | None,
    split: str = HASH_SPLIT,
    durations_key: str = "",
    narrowed: bool = False,
    kept_all: bool = True,
) -> Path:
    shown = [
        Shown(
            failure_result(
                SpecIdentity(f"{s}.spec.ts", s, "wasi", "wasi"), "x", Stage.RUN, s, "", ""
            ),
            cached=False,
        )
        for s in specs
    ]
    part = (
        ShardPart(
            *shard, split=split, durations_key=durations_key, narrowed=narrowed, kept_all=kept_all
        )
        if shard
        else None
    )
    write_reports(folder / "report.json", shown, shard=part)
    return folder / "report.json"


def test_merged_shards_print_one_summary_and_fail_like_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = shard_report(tmp_path / "1", ["a", "b"], (1, 2, 3))
    second = shard_report(tmp_path / "2", ["c"], (2, 2, 3))
    assert merge_reports([first, second], tmp_path / "merged") == 1
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == "tests: 0 passed, 3 failed, 0 skipped"
    merged = json.loads((tmp_path / "merged/report.json").read_text())
    assert [s["spec_id"] for s in merged["specs"]] == ["a", "b", "c"]
    for name in report_file_names().values():  # every format, as an unsharded run writes
        assert (tmp_path / "merged" / name).is_file(), name


@pytest.mark.parametrize(
    ("layout", "says"),
    [
        ([(["a"], (1, 2, 2))], "shard 2/2 is missing"),
        ([(["a"], (1, 2, 2)), (["a"], (2, 2, 2))], "is in both"),
        ([(["a"], (1, 2, 2)), (["b"], (1, 3, 2))], "not shards of one split"),
        ([(["a"], (1, 2, 2)), (["b"], None)], "not shards of one split"),
        # a shard run with a narrower --spec: the pairs do not add up
        ([(["a", "b"], (1, 2, 3)), (["c"], (2, 2, 4))], "cut from selections of 3 and 4"),
        ([(["a"], (1, 2, 3)), (["c"], (2, 2, 3))], "the shards hold 2"),
    ],
)
def test_reports_that_do_not_add_up_are_refused(
    tmp_path: Path, layout: list[tuple[list[str], tuple[int, int, int] | None]], says: str
) -> None:
    reports = [
        shard_report(tmp_path / str(i), specs, shard) for i, (specs, shard) in enumerate(layout)
    ]
    with pytest.raises(UserError, match=says):
        merge_reports(reports, tmp_path / "merged")
    assert not (tmp_path / "merged").exists(), "nothing written"


def test_an_old_or_foreign_report_is_named(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"specs": [{"spec_id": "a", "mode": "wasi"}]}))
    with pytest.raises(UserError, match="without its whole result"):
        merge_reports([old], tmp_path / "m")
    (tmp_path / "junk.json").write_text("[]")
    with pytest.raises(UserError, match=r"not a report\.json"):
        merge_reports([tmp_path / "junk.json"], tmp_path / "m")


def test_shards_cut_in_different_ways_are_refused_naming_each_split(tmp_path: Path) -> None:
    # Shards 1 and 2 read durations a merge published after shard 3 had read the older ones.
    reports = [
        shard_report(tmp_path / "1", ["a"], (1, 3, 3), split="durations:aaaa"),
        shard_report(tmp_path / "2", ["b"], (2, 3, 3), split="durations:aaaa"),
        shard_report(tmp_path / "3", ["c"], (3, 3, 3), split="durations:bbbb"),
    ]
    published: list[str] = []
    with pytest.raises(UserError) as refused:
        merge_reports(reports, tmp_path / "merged", lambda key, _: published.append(key))
    assert "cut the suite in different ways (1/3, 2/3 by durations:aaaa; 3/3 by " in str(
        refused.value
    )
    assert "fix: run every shard of the workflow again" in str(refused.value)
    assert published == [] and not (tmp_path / "merged").exists()


def test_the_merge_hands_every_pairs_duration_and_the_shards_key_to_publish(
    tmp_path: Path,
) -> None:
    reports = [
        shard_report(tmp_path / "1", ["a", "b"], (1, 2, 3), durations_key=KEY),
        shard_report(tmp_path / "2", ["c"], (2, 2, 3), durations_key=KEY),
    ]
    published: list[tuple[str, dict[str, float]]] = []
    merge_reports(reports, tmp_path / "m", lambda key, d: published.append((key, dict(d))))
    assert published == [(KEY, {"wasi:a": 0.0, "wasi:b": 0.0, "wasi:c": 0.0})]
    # A shard that ran without the cache names no key: the shards agree on no place.
    reports[1] = shard_report(tmp_path / "3", ["c"], (2, 2, 3))
    merge_reports(reports, tmp_path / "m2", lambda key, d: published.append((key, dict(d))))
    assert published[1][0] == ""


def test_shards_that_ran_last_failed_merge_and_publish_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--last-failed with --shard: each shard ran only its failures, so together they hold fewer
    pairs than the suite; the merge takes them (no pair twice, no shard missing) and publishes
    none of their times, which are not the suite's."""
    reports = [
        shard_report(
            tmp_path / "1", ["a"], (1, 2, 4), durations_key=KEY, narrowed=True, kept_all=False
        ),
        shard_report(
            tmp_path / "2", ["c"], (2, 2, 4), durations_key=KEY, narrowed=True, kept_all=False
        ),
    ]
    published: list[str] = []
    assert merge_reports(reports, tmp_path / "m", lambda key, _: published.append(key)) == 1
    assert published == []
    assert "shard durations not published: the shards ran part of the suite" in (
        capsys.readouterr().err
    )


def test_a_narrowed_selection_that_kept_its_pairs_is_still_counted(tmp_path: Path) -> None:
    reports = [
        shard_report(tmp_path / "1", ["a"], (1, 2, 3), narrowed=True),
        shard_report(tmp_path / "2", ["c"], (2, 2, 3), narrowed=True),
    ]
    with pytest.raises(UserError, match="the shards hold 2"):
        merge_reports(reports, tmp_path / "m")


@pytest.mark.parametrize("key", ["../cas/" + "0" * 64, "x?y=1", "\u00e9" * 4, "K" * 64, 7])
def test_a_reports_durations_key_that_no_remote_key_looks_like_is_none(
    tmp_path: Path, key: object
) -> None:
    """A report.json is a file from a CI job: its key becomes a path on the cache server."""
    reports = [
        shard_report(tmp_path / "1", ["a", "b"], (1, 2, 3), durations_key=KEY),
        shard_report(tmp_path / "2", ["c"], (2, 2, 3), durations_key=KEY),
    ]
    for report in reports:
        document = json.loads(report.read_text())
        document["shard"]["durations_key"] = key
        report.write_text(json.dumps(document))
    published: list[str] = []
    merge_reports(reports, tmp_path / "m", lambda found, _: published.append(found))
    assert published == [""]


def test_a_report_whose_result_holds_a_number_too_large_for_a_float_is_named(
    tmp_path: Path,
) -> None:
    """A shard's report comes from a CI job; a huge integer was an OverflowError traceback."""
    report = shard_report(tmp_path / "s1", ["a"], (1, 1, 1))
    document = json.loads(report.read_text())
    document["specs"][0]["result"]["duration_s"] = 10**400
    report.write_text(json.dumps(document))
    with pytest.raises(UserError, match="without its whole result"):
        merge_reports([report], tmp_path / "m")


def test_a_report_named_as_a_fifo_is_an_error_not_a_wait(tmp_path: Path) -> None:
    report = tmp_path / "s1" / "report.json"
    fifo = fifo_symlink(report)
    with pytest.raises(UserError, match=r"not a readable report\.json .*not a regular file"):
        without_waiting(lambda: merge_reports([report], tmp_path / "m"), fifo)
