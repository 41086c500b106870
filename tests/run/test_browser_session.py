"""Choosing the browser for web specs: which Chromium, and headless or not."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.run.browser_choice import BrowserChoice, find_chromium
from astest_tasks.run.web_runtime import NO_DISPLAY_NOTE, browser_choice


def fake_executable(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_default_is_the_first_chromium_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_executable(tmp_path, "chromium-browser")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_chromium("") == str(fake)
    assert find_chromium("chromium") == str(fake)
    assert find_chromium("chromium:headless") == str(fake)


def test_no_chromium_anywhere_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UserError, match=r"apt-get install chromium.*astest-tasks\[web\]"):
        find_chromium("")


def test_a_path_to_an_executable_is_used_as_given(tmp_path: Path) -> None:
    fake = fake_executable(tmp_path, "my-chrome")
    assert find_chromium(str(fake)) == str(fake)


def test_a_path_that_is_not_executable_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is not an executable"):
        find_chromium(str(tmp_path / "nothing-here"))


@pytest.mark.parametrize("browser", ["firefox", "webkit", "firefox:headless"])
def test_other_browsers_are_refused_with_the_reason(browser: str) -> None:
    with pytest.raises(UserError, match="web specs run in Chromium"):
        find_chromium(browser)


def test_headless_unless_a_window_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", ":99")
    assert browser_choice("/usr/bin/chromium", headful=False) == (
        BrowserChoice("/usr/bin/chromium", headless=True),
        None,
    )
    assert browser_choice("/usr/bin/chromium", headful=True) == (
        BrowserChoice("/usr/bin/chromium", headless=False),
        None,
    )


def test_a_window_without_a_display_falls_back_to_headless_with_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    choice, note = browser_choice("/usr/bin/chromium", headful=True)
    assert choice.headless is True
    assert note == NO_DISPLAY_NOTE
    assert "xvfb-run" in NO_DISPLAY_NOTE
    assert os.environ.get("DISPLAY") is None
