"""``astest merge`` with a shared cache (a real nginx, tests/nginx_cache.py): the durations are
published where the shards said, and publishing never changes the merge's exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.commands.merge_command import merge_command
from astest_tasks.remote.settings import parse_settings
from astest_tasks.remote.shard_durations import SharedDurations, durations_key
from tests.nginx_cache import CacheServer, free_port
from tests.output.test_merge_reports import shard_report

KEY = durations_key("as-test.config.json", "astest", ["wasi"])


def reports(folder: Path, key: str = KEY) -> list[Path]:
    return [
        shard_report(folder / "1", ["a", "b"], (1, 2, 3), durations_key=key),
        shard_report(folder / "2", ["c"], (2, 2, 3), durations_key=key),
    ]


@pytest.fixture(autouse=True)
def no_cache_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ASTEST_REMOTE_CACHE", "ASTEST_REMOTE_CACHE_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASTEST_REMOTE_CACHE_SIGNING_KEY", "k")


def test_the_durations_are_published_under_the_shards_key(
    tmp_path: Path, cache_server: CacheServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert merge_command(reports(tmp_path), tmp_path / "m", cache_server.url(), None) == 1
    assert "shard durations of 3 pairs published" in capsys.readouterr().err
    shared = SharedDurations(parse_settings(cache_server.url(), signing_key="k"), KEY)
    assert shared.read(lambda text: pytest.fail(text)) == {
        "wasi:a": 0.0,
        "wasi:b": 0.0,
        "wasi:c": 0.0,
    }


def test_the_cache_comes_from_the_environment_and_read_mode_publishes_nothing(
    tmp_path: Path,
    cache_server: CacheServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASTEST_REMOTE_CACHE", cache_server.url())
    monkeypatch.setenv("ASTEST_REMOTE_CACHE_MODE", "read")
    assert merge_command(reports(tmp_path), tmp_path / "m", None, None) == 1
    assert "not published: the remote cache is open in read mode" in capsys.readouterr().err
    assert not (cache_server.stored / "ac").exists()


def test_shards_that_ran_without_the_cache_name_no_place_to_publish(
    tmp_path: Path, cache_server: CacheServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert merge_command(reports(tmp_path, key=""), tmp_path / "m", cache_server.url(), None) == 1
    assert "fix: give every shard the same --remote-cache" in capsys.readouterr().err
    assert not (cache_server.stored / "ac").exists()


def test_a_cache_that_is_down_costs_one_warning_not_the_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{free_port()}/cache"
    assert merge_command(reports(tmp_path), tmp_path / "m", url, None) == 1
    err = capsys.readouterr().err
    assert err.count("WARNING: remote cache") == 1 and "published" not in err


def test_a_bad_cache_setting_is_an_error_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert merge_command(reports(tmp_path), tmp_path / "m", "http://[::1", None) == 3
    assert capsys.readouterr().err.startswith("ERROR: --remote-cache: ")
    assert merge_command(reports(tmp_path), tmp_path / "n", "http://h/c", "write") == 3
    assert "unknown remote cache mode 'write'" in capsys.readouterr().err
