"""The web runtime's inputs and key, and how it tells a browser that is not there (no Chromium
is started here: tests/integration/test_web.py runs real specs in one)."""

from __future__ import annotations

import stat
from pathlib import Path

from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.runtime import RunnableSpec, SpecLimits
from astest_tasks.run.web_runtime import BrowserRuntime


def fake_chrome(tmp_path: Path) -> Path:
    chrome = tmp_path / "my-chrome"
    chrome.write_text("#!/bin/sh\n")
    chrome.chmod(chrome.stat().st_mode | stat.S_IXUSR)
    return chrome


def test_the_executable_is_in_the_key_and_a_window_is_not(tmp_path: Path) -> None:
    chrome = str(fake_chrome(tmp_path))
    headless = BrowserRuntime(chrome, headful=False).located()
    assert headless.executable == chrome
    assert headless.cache_key == f"browser {chrome} ({chrome})"
    assert BrowserRuntime(chrome, headful=True).located().cache_key == headless.cache_key
    assert BrowserRuntime("", headful=False).cache_key == "browser chromium (not found)"


def test_its_page_ships_with_astest_tasks_so_no_project_file_is_an_input(tmp_path: Path) -> None:
    runtime = BrowserRuntime("", headful=False)
    assert runtime.input_files(tmp_path) == []
    assert runtime.default_runner_target is None


def test_a_browser_that_is_not_there_fails_the_spec_with_the_reason(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone-chrome")
    runtime = BrowserRuntime(missing, headful=False).located()
    assert runtime.executable == "", "not found when the tasks were made"
    spec = RunnableSpec(tmp_path, "a.spec.ts", "a.wasm", "web", {})
    run = runtime.run(spec, ProtocolChannel(None), SpecLimits(5.0, 1 << 24))
    assert run.start_failure is not None
    assert missing in run.start_failure and "is not an executable" in run.start_failure
