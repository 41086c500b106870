"""One compile server for all of doit's worker processes, on a machine with few cores.

``doit -n N`` forks worker processes, and each would start a compile server of its own. A
server's first compiles are several times slower than later ones (V8 is still compiling asc),
and Node already uses about one and a half cores while it compiles: on two cores, two servers
warming up side by side took longer for the same 20 compiles than one server alone (4.1-4.2 s
against 3.6 s), and a cold ``doit -n 2`` was slower than a plain ``doit``. So, where the
machine has at most ``MAX_CPUS`` cores, doit's main process starts one server before it forks
its workers (tasks/compile_ahead.py decides when), and every worker sends its compiles there,
one at a time, while the other worker runs its specs.

- **Taking turns** is an exclusive ``flock`` on a lock file, opened anew for each compile so
  that processes (and threads) never share one lock. A process that dies holding it releases it.
- **Pipes inherited through fork.** A request and its reply cross the pipes while the lock is
  held, and the server writes nothing else, so no process reads another's reply. Request ids
  carry the process id (compile_server.py): a reply left behind by a worker that died
  mid-compile is seen for what it is.
- **Lost once, lost for this process.** A server that dies, times out, breaks the protocol or
  asks to be retired is killed by whoever meets it; each process that then meets the loss goes
  on with a server of its own (compile_pool.py's retry).
- **The owner ends it**: the main process closes it and removes the lock file when doit is
  done; workers only drop their copies of its pipes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from astest_tasks.build.compile_server import CompileOutput, CompileServer

MAX_CPUS = 3  # two servers at one and a half cores each need four


def usable_cpus() -> int:
    return len(os.sched_getaffinity(0))


class SharedServer:
    def __init__(self, key: object, server: CompileServer, lock_path: Path) -> None:
        self.key = key
        self.server = server
        self.lock_path = lock_path
        self.owner_pid = os.getpid()
        # Met its loss: each process has its own copy of this object, so each learns for itself.
        self._lost = False

    @property
    def usable(self) -> bool:
        return not self._lost and (os.getpid() != self.owner_pid or self.server.alive)

    def compile(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limit_s: float
    ) -> tuple[CompileOutput, bool]:
        """``CompileServer.compile`` in turn with the other processes; raises what it raises."""
        with self._turn():
            return self.server.compile(argv, cwd, env, limit_s)

    def lose(self) -> None:
        """Kill it (it died, hung, broke the protocol or must be retired); never used again here."""
        self._lost = True
        self.server.kill()

    def close(self) -> None:
        """At exit: the owner ends the server; a worker drops its copies of the pipes."""
        if os.getpid() == self.owner_pid:
            self.server.close()
            with contextlib.suppress(OSError):
                self.lock_path.unlink()
        else:
            self.server.abandon()

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        fd = os.open(self.lock_path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock
