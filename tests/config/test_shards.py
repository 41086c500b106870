"""Shards partition the suite exactly, stay stable, and balance by duration when told."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.config.shards import (
    Shard,
    assign_shards,
    hashed_shard,
    load_durations,
    pair_key,
    split_name,
)
from astest_tasks.core.errors import UserError
from tests.fifo_guard import fifo_symlink, without_waiting


def test_parse() -> None:
    assert Shard.parse("") is None
    assert Shard.parse(" 2/4 ") == Shard(2, 4)
    assert Shard(2, 4).label == "2-of-4"
    for bad in ("0/4", "5/4", "2", "a/b", "2/0", "-1/3"):
        with pytest.raises(UserError, match="k/N"):
            Shard.parse(bad)


def test_a_hashed_shard_is_stable_across_processes() -> None:
    # Every CI job is its own process: Python's hash() would differ with PYTHONHASHSEED.
    code = (
        "from astest_tasks.config.shards import hashed_shard;"
        "print([hashed_shard(f'wasi:spec{i}', 4) for i in range(16)])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert outputs == {f"{[hashed_shard(f'wasi:spec{i}', 4) for i in range(16)]}\n"}
    assert hashed_shard("wasi:math", 1) == 1
    assert {hashed_shard(f"m:s{i}", 3) for i in range(60)} == {1, 2, 3}


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.text(min_size=1, max_size=12), max_size=40, unique=True),
    count=st.integers(min_value=1, max_value=7),
    timed=st.dictionaries(st.text(min_size=1, max_size=12), st.floats(0, 100), max_size=20),
)
def test_the_shards_partition_every_key_exactly(
    keys: list[str], count: int, timed: dict[str, float]
) -> None:
    assigned = assign_shards(keys, count, timed)
    assert set(assigned) == set(keys)
    assert all(1 <= shard <= count for shard in assigned.values())
    shards = [{k for k, s in assigned.items() if s == index} for index in range(1, count + 1)]
    assert sum(len(part) for part in shards) == len(keys)  # disjoint and complete
    assert assign_shards(list(reversed(keys)), count, timed) == assigned, "order-independent"


def test_adding_a_key_moves_no_other_when_hashing() -> None:
    keys = [pair_key("wasi", f"s{i}") for i in range(30)]
    before = assign_shards(keys, 4)
    after = assign_shards([*keys, "wasi:new"], 4)
    assert all(after[key] == shard for key, shard in before.items())


def test_durations_balance_the_load() -> None:
    durations = {"m:slow": 10.0, "m:mid": 6.0, "m:a": 4.0, "m:b": 3.0, "m:c": 3.0}
    assigned = assign_shards(list(durations), 2, durations)
    load = {1: 0.0, 2: 0.0}
    for key, shard in assigned.items():
        load[shard] += durations[key]
    assert sorted(load.values()) == [13.0, 13.0]


def test_durations_come_from_a_report(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text(
        json.dumps({"specs": [{"mode": "wasi", "spec_id": "math", "duration_s": 1.5}]})
    )
    assert load_durations(report) == {"wasi:math": 1.5}
    with pytest.raises(UserError, match="no such file"):
        load_durations(tmp_path / "absent.json")
    report.write_text("{}")
    with pytest.raises(UserError, match=r"not a report\.json"):
        load_durations(report)


def test_a_pair_without_a_duration_counts_as_the_median() -> None:
    durations = {"m:a": 9.0, "m:b": 5.0, "m:c": 4.0, "m:d": 1.0}
    # m:new costs 4.5 (the median): the shard with m:b (5) and the one with m:c, m:d (5)
    # are lighter than m:a's (9), so m:new must not join m:a whatever its hash says.
    assigned = assign_shards([*durations, "m:new"], 3, durations)
    assert assigned["m:new"] != assigned["m:a"]
    load = {1: 0.0, 2: 0.0, 3: 0.0}
    for key, shard in assigned.items():
        load[shard] += durations.get(key, 4.5)
    assert max(load.values()) == 9.0


def test_durations_of_no_selected_pair_leave_the_hash_split() -> None:
    keys = [pair_key("wasi", f"s{i}") for i in range(12)]
    assert assign_shards(keys, 3, {"wasi:gone": 3.0}) == assign_shards(keys, 3)


def test_a_split_is_named_by_how_it_was_made_and_every_pairs_shard() -> None:
    one = split_name({"m:a": 1, "m:b": 2}, by_durations=True)
    assert one.startswith("durations:")
    assert split_name({"m:b": 2, "m:a": 1}, by_durations=True) == one, "order-independent"
    assert split_name({"m:a": 2, "m:b": 1}, by_durations=True) != one
    assert split_name({"m:a": 1, "m:b": 2}, by_durations=False).startswith("hash:")


@pytest.mark.parametrize("seconds", ["1" + "0" * 400, "NaN", "Infinity", "1e400", '"1.5"', "null"])
def test_a_duration_that_is_no_finite_number_names_the_file_and_the_entry(
    tmp_path: Path, seconds: str
) -> None:
    """A huge integer was an OverflowError; NaN would have made the split differ by machine."""
    report = tmp_path / "durs.json"
    report.write_text(
        '{"specs": [{"mode": "wasi", "spec_id": "a", "duration_s": 1.5}, '
        f'{{"mode": "wasi", "spec_id": "math", "duration_s": {seconds}}}]}}'
    )
    with pytest.raises(UserError) as raised:
        load_durations(report)
    assert str(report) in str(raised.value)
    assert "specs[1] 'wasi:math': duration_s is not a finite number of seconds" in str(raised.value)


def test_durations_named_as_a_fifo_are_an_error_not_a_wait(tmp_path: Path) -> None:
    report = tmp_path / "durs.json"
    fifo = fifo_symlink(report)
    with pytest.raises(UserError, match=r"not a report\.json .*not a regular file"):
        without_waiting(lambda: load_durations(report), fifo)
