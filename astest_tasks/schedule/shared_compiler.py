"""Before doit forks its worker processes: one compile server for them all, on few cores.

Why one server serves every worker on a machine of few cores is in schedule/shared_server.py.
It is started here, when the tasks are made, because only doit's main process can start a
server its workers inherit, and doit forks them right after. It is started before this returns:
a worker forked while the server was still starting would not get it, and doit has little else
to do meanwhile (measured: about 20 ms of the 0.4 s a server takes to start). Started only
when a build is bound to run (one of the first planned has no module, or an input newer than
it): a run with nothing to build starts no Node.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import threading
from collections.abc import Callable, Sequence

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.core.process_role import in_doits_main_thread
from astest_tasks.schedule.build_prefetch import PlannedBuild, first_bound_build
from astest_tasks.schedule.shared_server import MAX_CPUS, can_share, usable_cpus


def share_with_workers(
    planned: Sequence[PlannedBuild], share_compile_server: Callable[[BuildRequest], bool]
) -> bool:
    """For a doit call that will fork workers: start the shared server if they need one; True
    when one runs (started now, or still running from watch mode's last cycle)."""
    # A worker started by spawn or forkserver inherits no server (the first method listed is the
    # default); and only doit's main thread of its main process forks them.
    method = multiprocessing.get_start_method(allow_none=True)
    if (method or multiprocessing.get_all_start_methods()[0]) != "fork":
        return False
    if not in_doits_main_thread():
        return False
    if not can_share() or usable_cpus() > MAX_CPUS:
        return False
    build = first_bound_build(planned)
    if build is None:
        return False
    importing = threading.Thread(target=_import_what_workers_run, name="astest-imports")
    importing.start()
    try:
        return share_compile_server(build.request)
    except Exception:  # only a head start (a broken toolchain, say): each build then says why
        return False
    finally:
        importing.join()


# The run path beyond what making the tasks imported: wasmtime (about 20 ms) and the runners.
_WHAT_WORKERS_RUN = ("astest_tasks.run.wasm_host", "astest_tasks.run.runner_script")


def _import_what_workers_run() -> None:
    """While Node starts on one core: the workers forked next inherit these modules, instead of
    each importing them while the compile server needs both cores."""
    for module in _WHAT_WORKERS_RUN:
        with contextlib.suppress(Exception):  # a worker that needs one then says what is wrong
            importlib.import_module(module)
