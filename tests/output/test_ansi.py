"""output/ansi.py: our colour codes are colorama's, byte for byte, and colorama still readies a
Windows console."""

from __future__ import annotations

import sys

import colorama
import pytest

from astest_tasks.output import ansi


@pytest.mark.parametrize("group", ["Fore", "Back", "Style"])
def test_every_code_is_the_one_colorama_gives_under_that_name(group: str) -> None:
    ours = {name: code for name, code in vars(getattr(ansi, group)).items() if name.isupper()}
    theirs = getattr(colorama, group)
    assert ours, f"ansi.{group} defines no code"
    assert ours == {name: getattr(theirs, name) for name in ours}


def test_a_windows_console_is_readied_by_colorama(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(colorama, "just_fix_windows_console", lambda: calls.append("fixed"))
    ansi.fix_windows_console()
    assert calls == ["fixed"]


def test_elsewhere_colorama_is_not_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(colorama, "just_fix_windows_console", lambda: calls.append("fixed"))
    ansi.fix_windows_console()
    assert calls == []
