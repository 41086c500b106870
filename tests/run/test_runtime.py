"""Every runtime is a ``Runtime``: plain frozen data that doit can ship to its workers, and cheap
to choose (what only a run needs is imported by the run)."""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.run.external_runtime import ExternalRuntime
from astest_tasks.run.inprocess_runtime import InProcessRuntime
from astest_tasks.run.runtime import Runtime
from astest_tasks.run.runtime_command import resolve_runtime
from astest_tasks.run.web_runtime import BrowserRuntime

FIELD = "as-test.config.json: runOptions.runtime.cmd"


def every_kind(root: Path) -> list[Runtime]:
    """One runtime of each kind, as the choice makes them."""
    (root / "runner.mjs").write_text("// a Node runner of the project's own\n")
    commands = [
        ("", "wasi"),
        ("python ./my-runner.py <file>", "bindings"),
        ("node ./runner.mjs <file>", "wasi"),
        ("", "web"),
    ]
    return [resolve_runtime(command, target, root, FIELD) for command, target in commands]


def test_the_choice_makes_each_kind_once(tmp_path: Path) -> None:
    kinds = [type(runtime) for runtime in every_kind(tmp_path)]
    assert kinds == [DefaultRuntime, InProcessRuntime, ExternalRuntime, BrowserRuntime]


def test_every_runtime_pickles_whole_for_doits_workers(tmp_path: Path) -> None:
    for runtime in every_kind(tmp_path):
        copy = pickle.loads(pickle.dumps(runtime))
        assert copy == runtime
        assert copy.cache_key == runtime.cache_key
        assert copy.input_files(tmp_path) == runtime.input_files(tmp_path)


def test_every_runtime_is_frozen(tmp_path: Path) -> None:
    for runtime in every_kind(tmp_path):
        field = dataclasses.fields(runtime)[0].name  # type: ignore[arg-type]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(runtime, field, "changed")


def test_the_cache_keys_tell_every_runtime_apart(tmp_path: Path) -> None:
    keys = [runtime.cache_key for runtime in every_kind(tmp_path)]
    assert len(set(keys)) == len(keys)


def test_choosing_runtimes_imports_neither_wasmtime_nor_the_web_harness() -> None:
    """A no-op doit makes every task and runs none: it must not pay for what runs need."""
    probe = (
        "import sys\n"
        "from astest_tasks.tasks import creator\n"
        "heavy = ('wasmtime', 'http.server', 'astest_tasks.run.wasm_host', 'playwright')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
