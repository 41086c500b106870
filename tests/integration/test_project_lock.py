"""Two doit processes on one project: the second is told the first holds it, and reading
commands still work meanwhile."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.integration.conftest import copy_project

pytestmark = pytest.mark.integration


def test_a_second_doit_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    project = copy_project("failing", tmp_path)
    config_path = project.root / "as-test.config.json"
    config = json.loads(config_path.read_text())
    config["input"] = ["assembly/__tests__/hang.spec.ts"]
    config_path.write_text(json.dumps(config))
    assert project.doit("astest:build:wasi:hang").exit_code == 0
    first = project.start_doit("astest", "--mode", "wasi", env={"ASTEST_TIMEOUT": "60"})
    try:
        lock = project.root / ".as-test/cache/project.lock"
        deadline = time.monotonic() + 60
        while not (lock.is_file() and lock.read_text() == f"pid {first.pid}"):
            assert time.monotonic() < deadline, "the first doit never took the lock"
            time.sleep(0.05)
        second = project.doit("astest", "--mode", "wasi")
        assert second.exit_code == 3
        assert f"another doit (pid {first.pid}) is running in this project" in second.stderr
        listing = project.doit("list")
        assert listing.exit_code == 0 and "astest" in listing.stdout
    finally:
        first.terminate()
        first.wait(30)
    after = project.doit("astest", "--mode", "wasi", env={"ASTEST_TIMEOUT": "1"})
    assert after.exit_code == 1  # the project is free again; the hanging spec times out
    assert "timed out after 1 s" in after.stdout
