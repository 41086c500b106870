"""terminal_env: what the environment says about the stream we print to."""

from __future__ import annotations

import io

import pytest

from astest_tasks.core.terminal_env import in_github_actions, use_colour
from astest_tasks.output import github_actions, terminal


def test_only_the_runners_own_value_means_github_actions() -> None:
    assert in_github_actions({"GITHUB_ACTIONS": "true"})
    for value in ("", "false", "TRUE", "1", "yes"):
        assert not in_github_actions({"GITHUB_ACTIONS": value})
    assert not in_github_actions({})


def test_no_color_wins_then_force_color_then_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert not use_colour(io.StringIO())  # a pipe
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert use_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(io.StringIO())


def test_the_output_stage_decides_with_the_same_rules() -> None:
    # for_stream (core) and the palettes (output) must agree on colour, or a kept colour code
    # would be escaped, or an escaped one kept.
    assert terminal.use_colour is use_colour
    assert github_actions.in_github_actions is in_github_actions
