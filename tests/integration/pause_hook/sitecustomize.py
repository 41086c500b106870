"""Stops a doit process at an exact point so that a test can signal it there (never by timing).

Tests put this folder on PYTHONPATH and describe the point in ASTEST_TEST_PAUSE (JSON, written by
tests/integration/pausing.py). When the process reaches it, it creates the marker file and waits
in ``time.sleep``, where a signal acts as it would at that instant of a real run: Python's
handlers raise KeyboardInterrupt there, a default disposition ends the process.
"""

from __future__ import annotations

import faulthandler
import fnmatch
import functools
import importlib.abc
import importlib.util
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

_POINT = json.loads(os.environ.get("ASTEST_TEST_PAUSE", "null"))


def _wait_for_the_signal() -> None:
    with open(_POINT["marker"], "x") as marker:
        marker.write(str(os.getpid()))
    # In short sleeps: a signal the kernel hands to another thread only sets Python's flag, which
    # the main thread reads when it next runs, as a real run's main thread soon would.
    while True:
        time.sleep(0.05)


def _counted(real: Callable[..., Any], reached: Callable[..., bool]) -> Callable[..., Any]:
    """``real``, pausing on the ``nth`` call for which ``reached(*args)`` holds."""
    seen = 0

    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        if reached(*args):
            seen += 1
            if seen == _POINT["nth"]:
                if _POINT["kind"] == "fsync":  # mid-write: the data is in the temporary file
                    real(*args, **kwargs)
                _wait_for_the_signal()
        return real(*args, **kwargs)

    return wrapper


def _fsyncs_a_match(fd: Any) -> bool:
    number = fd if isinstance(fd, int) else fd.fileno()
    return fnmatch.fnmatch(os.readlink(f"/proc/self/fd/{number}"), _POINT["target"])


class _WrapOnImport(importlib.abc.MetaPathFinder):
    """Wraps ``Class.method`` of a module of ours right after the module is first imported."""

    def __init__(self, module: str, qualname: str) -> None:
        self.module, self.qualname = module, qualname

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != self.module:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.loader is not None
        loader = spec.loader
        run_module = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            owner_name, _, attribute = self.qualname.rpartition(".")
            owner = getattr(module, owner_name) if owner_name else module
            real = getattr(owner, attribute)
            setattr(owner, attribute, _counted(real, lambda *_args: True))

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if _POINT is not None:
    # A shell without job control starts background commands with Ctrl-C ignored, and Python
    # then installs no handler: a test suite started that way (`pytest ... &`) would send its
    # SIGINT to a doit that ignores it. Give doit the handler it has when started from a terminal.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # A process that does not end when signalled says where it is stuck (pausing.stop asks).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    if _POINT["kind"] == "fsync":
        os.fsync = _counted(os.fsync, _fsyncs_a_match)
    else:
        module_name, _, qualified = _POINT["target"].partition(":")
        sys.meta_path.insert(0, _WrapOnImport(module_name, qualified))
