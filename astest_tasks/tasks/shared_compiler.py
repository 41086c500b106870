"""Before doit forks its worker processes: one compile server for them all, on few cores.

Why one server serves every worker on a machine of few cores is in build/shared_server.py.
It is started here, when the tasks are made, because only doit's main process can start a
server its workers inherit, and doit forks them soon after. It starts on a thread, so that doit
loads on meanwhile, and every fork first waits for that start to finish: a worker forked in the
middle of it would inherit a server half spoken to. Started only when a build is bound to run
(one of the first planned has no module, or an input newer than it): a run with nothing to
build starts no Node.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Mapping, Sequence

from astest_tasks.build.build_prefetch import first_bound_build, planned_builds
from astest_tasks.build.compile_server import START_TIME_LIMIT_S
from astest_tasks.build.compiler import share_compile_server
from astest_tasks.build.shared_server import MAX_CPUS, usable_cpus
from astest_tasks.tasks.doit_argv import forks_worker_processes

_starting: threading.Thread | None = None


def share_compiler_with_workers(arguments: Sequence[str]) -> bool:
    """Start the shared server if this doit call will fork workers that need one; True when a
    start is under way (or was already)."""
    global _starting
    if _starting is not None and _starting.is_alive():
        return True  # a second pipeline of the same dodo shares the one being started
    # Once started, sharing again is cheap: the pool keeps a live server (watch mode's cycles).
    if not (forks_worker_processes(arguments) and usable_cpus() <= MAX_CPUS):
        return False
    # A worker started by spawn or forkserver inherits no server (the first method listed is the
    # default); and only doit's main thread of its main process forks them.
    method = multiprocessing.get_start_method(allow_none=True)
    if (method or multiprocessing.get_all_start_methods()[0]) != "fork":
        return False
    if multiprocessing.parent_process() is not None:
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    build = first_bound_build(planned_builds())
    if build is None:
        return False
    _starting = threading.Thread(
        target=_start, args=(build.request,), name="astest-share", daemon=True
    )
    _starting.start()
    return True


def _start(request: Mapping[str, object]) -> None:
    try:
        share_compile_server(request)
    except Exception:  # only a head start: each worker then starts a server of its own
        return


def _finish_starting() -> None:
    starting = _starting
    if starting is not None and starting is not threading.current_thread():
        starting.join(START_TIME_LIMIT_S)


def _forget_after_fork() -> None:
    global _starting
    _starting = None


os.register_at_fork(before=_finish_starting, after_in_child=_forget_after_fork)
