"""Whether this code runs where a plain doit runs its tasks one at a time.

That is the main thread of a process that is not a multiprocessing child: doit's own process.
Under ``doit -n N`` the tasks run in forked worker processes, and under ``-P thread`` on other
threads; the work done ahead of doit (build prefetch, run ahead) and the compile server shared
with forked workers only make sense here."""

from __future__ import annotations

import threading


def in_doits_main_thread() -> bool:
    # Imported here: only the callers that decide to run something ahead pay for it.
    import multiprocessing

    return (
        multiprocessing.parent_process() is None
        and threading.current_thread() is threading.main_thread()
    )
