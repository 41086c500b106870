"""A runner's environment additions stay its own: other threads see doit's environment."""

from __future__ import annotations

import os
import threading

import pytest

from astest_tasks.core.process_env import base_environ, runner_environment


def test_additions_are_visible_inside_and_undone_after(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASTEST_TEST_KEPT", "original")
    monkeypatch.delenv("ASTEST_TEST_NEW", raising=False)
    with runner_environment({"ASTEST_TEST_KEPT": "mode", "ASTEST_TEST_NEW": "mode"}):
        assert os.environ["ASTEST_TEST_KEPT"] == "mode"
        assert os.environ["ASTEST_TEST_NEW"] == "mode"
    assert os.environ["ASTEST_TEST_KEPT"] == "original"
    assert "ASTEST_TEST_NEW" not in os.environ


def test_another_thread_gets_the_environment_without_a_running_runners_additions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASTEST_TEST_KEPT", "original")
    monkeypatch.delenv("ASTEST_TEST_NEW", raising=False)
    inside = threading.Event()
    release = threading.Event()

    def runner() -> None:
        with runner_environment({"ASTEST_TEST_KEPT": "mode-a", "ASTEST_TEST_NEW": "mode-a"}):
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=runner)
    thread.start()
    try:
        assert inside.wait(5)
        seen = base_environ()  # what a compile or an external runtime on this thread inherits
        assert seen["ASTEST_TEST_KEPT"] == "original"
        assert "ASTEST_TEST_NEW" not in seen
    finally:
        release.set()
        thread.join()


def test_a_child_gets_none_of_the_remote_caches_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The URL may hold a password: a compiler, an external runtime or the run ahead's helper
    inherits the environment, and what a child prints can end in a result the cache shares."""
    monkeypatch.setenv("ASTEST_REMOTE_CACHE", "http://user:hunter2@cache.invalid/")
    monkeypatch.setenv("ASTEST_REMOTE_CACHE_HEADER", "Authorization: Bearer t0ken")
    monkeypatch.setenv("ASTEST_REMOTE_CACHE_SIGNING_KEY", "s1gn")
    monkeypatch.setenv("ASTEST_REMOTE_CACHE_MODE", "read")
    child = base_environ()
    assert not {"ASTEST_REMOTE_CACHE", "ASTEST_REMOTE_CACHE_HEADER"} & set(child)
    assert "ASTEST_REMOTE_CACHE_SIGNING_KEY" not in child
    assert child["ASTEST_REMOTE_CACHE_MODE"] == "read"  # not a secret
    assert os.environ["ASTEST_REMOTE_CACHE_SIGNING_KEY"] == "s1gn"  # ours is left alone
