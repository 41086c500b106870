"""The process environment, and the temporary additions an in-process runner makes to it.

A runner sees its mode's env in ``os.environ``, which is process-wide. Under ``doit -P thread``
other threads spawn compilers and external runtimes at the same moment; they must inherit the
environment doit started with, not one mode's additions (which are not in their cache keys).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping

# The remote cache's URL (it may hold user:password), auth header and signing key: the settings
# reach our own workers inside the actions' arguments (remote/session.py), so no child needs them,
# and a child's output (a compiler's, an external runtime's) may end up in a shared result.
# remote/settings.py names them (SECRET_VARIABLES); a test holds the two sets equal.
WITHHELD_FROM_CHILDREN = frozenset(
    {"ASTEST_REMOTE_CACHE", "ASTEST_REMOTE_CACHE_HEADER", "ASTEST_REMOTE_CACHE_SIGNING_KEY"}
)
_LOCK = threading.Lock()  # one runner's additions at a time: os.environ has no per-thread view
_SAVED: dict[str, str | None] = {}  # what the active additions replaced (None: was unset)


@contextlib.contextmanager
def runner_environment(extra: Mapping[str, str]) -> Iterator[None]:
    """Add ``extra`` to ``os.environ`` for the duration; one runner at a time in a process."""
    with _LOCK:
        _SAVED.update({name: os.environ.get(name) for name in extra})
        os.environ.update(extra)
        try:
            yield
        finally:
            for name, value in _SAVED.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            _SAVED.clear()


def base_environ() -> dict[str, str]:
    """The environment for a child process: ``os.environ`` without the additions of a runner
    that is running right now, and without the secrets of ``WITHHELD_FROM_CHILDREN``."""
    environ = dict(os.environ)
    for name, value in list(_SAVED.items()):
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    for name in WITHHELD_FROM_CHILDREN:
        environ.pop(name, None)
    return environ
