"""One compile server for all of doit's worker processes, on a machine with few cores.

``doit -n N`` forks worker processes, and each would start a compile server of its own. A
server's first compiles are several times slower than later ones (V8 is still compiling asc),
and Node already uses about one and a half cores while it compiles: on two cores, two servers
warming up side by side took longer for the same 20 compiles than one server alone (4.1-4.2 s
against 3.6 s), and a cold ``doit -n 2`` was slower than a plain ``doit``. So, where the
machine has at most ``MAX_CPUS`` cores, doit's main process starts one server before it forks
its workers (schedule/shared_compiler.py decides when), and every worker sends its compiles there,
one at a time, while the other worker runs its specs.

- **Taking turns** is an exclusive ``flock`` on a file with no name: the main process holds it
  open, and each compile opens it anew through ``/proc/self/fd`` (a lock of its own, so that
  processes and threads never share one, and no file to leave behind). A process that dies
  holding its turn gives it back. A worker that waits longer than ``TURN_WAIT_S`` (a compile
  that hangs until its time limit) goes on with a server of its own instead.
- **Pipes inherited through fork.** A request and its reply cross the pipes while the turn is
  held, and the server writes nothing else, so no process reads another's reply. Request ids
  carry the process id (compile_server.py).
- **A compile in flight is marked** in the file (the process id, cleared once its reply is
  read), so the next worker knows when one died in the middle of a compile: the server is
  still busy with a request nobody will read, so that worker ends it rather than wait behind it.
- **Lost once, lost for this process.** A server that dies, times out, breaks the protocol or
  asks to be retired is killed by whoever meets it, in its turn; each process that then meets
  the loss goes on with a server of its own (compile_pool.py's retry).
- **The owner ends it**: the main process closes it when doit is done; workers only drop their
  copies of its pipes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

from astest_tasks.build.compile_server import CompileOutput, CompileServer, ServerDied

MAX_CPUS = 3  # two servers at one and a half cores each need four
TURN_WAIT_S = 60.0  # longer than any compile but a hung one


def can_share() -> bool:
    """Only where a file can be opened anew through /proc/self/fd, and affinity is known."""
    return hasattr(os, "sched_getaffinity") and os.path.isdir("/proc/self/fd")


def usable_cpus() -> int:
    """The cores this process may run on (a container or taskset may allow fewer than exist)."""
    return len(os.sched_getaffinity(0))


class SharedServer:
    def __init__(self, key: Hashable, server: CompileServer, turns: IO[bytes]) -> None:
        self.key = key
        self.server = server
        self._turns = turns  # unlinked; its descriptor number is the same in every worker
        self.owner_pid = os.getpid()
        # Met its loss: each process has its own copy of this object, so each learns for itself.
        self._lost = False

    @property
    def usable(self) -> bool:
        return not self._lost and (os.getpid() != self.owner_pid or self.server.alive)

    def compile(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limit_s: float
    ) -> tuple[CompileOutput, bool]:
        """``CompileServer.compile`` in turn with the other processes; raises what it raises,
        and ``ServerDied`` when this process cannot use the server any more."""
        with self._turn() as turn:
            if os.pread(turn, 32, 0):
                self.lose()
                raise ServerDied(
                    "a doit worker died in the middle of a compile on the shared compile server"
                )
            os.pwrite(turn, str(os.getpid()).encode(), 0)
            try:
                output, recycle = self.server.compile(argv, cwd, env, limit_s)
            except BaseException:
                self.lose()  # in our turn: nobody else has a request in flight
                raise
            finally:
                os.ftruncate(turn, 0)
            if recycle:
                self.lose()
            return output, recycle

    def lose(self) -> None:
        """Kill it (it died, hung, broke the protocol or must be retired); never used again here."""
        if self._lost:
            return
        self._lost = True
        self.server.kill()

    def close(self) -> None:
        """At exit: the owner ends the server; a worker drops its copies of the pipes."""
        if os.getpid() == self.owner_pid:
            self.server.close()
        else:
            self.server.abandon()
        with contextlib.suppress(OSError):
            self._turns.close()

    @contextlib.contextmanager
    def _turn(self) -> Iterator[int]:
        try:
            turn = _take_turn(f"/proc/self/fd/{self._turns.fileno()}", TURN_WAIT_S)
        except (OSError, ValueError) as exc:  # the file is gone (we are exiting), no locks left
            self._lost = True  # for this process only: the others may still use it
            raise ServerDied(f"no turn on the shared compile server ({exc})") from exc
        if turn is None:
            self._lost = True
            raise ServerDied(
                f"another doit worker's compile held the shared compile server over "
                f"{TURN_WAIT_S:.0f} s"
            )
        try:
            yield turn
        finally:
            os.close(turn)  # gives the turn back


def _take_turn(path: str, wait_s: float) -> int | None:
    """A new descriptor of ``path`` holding its exclusive lock; None when it was not had within
    ``wait_s`` (flock itself has no time limit, so a busy lock is waited for on a thread, which
    gives the turn straight back if it comes too late)."""
    descriptor = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return descriptor
    except BlockingIOError:
        pass
    except BaseException:
        os.close(descriptor)
        raise
    decided = threading.Lock()
    state = {"taken": False, "abandoned": False}
    answered = threading.Event()

    def wait() -> None:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:
            os.close(descriptor)
            answered.set()
            return
        with decided:
            if state["abandoned"]:
                os.close(descriptor)
                return
            state["taken"] = True
        answered.set()

    threading.Thread(target=wait, name="astest-turn", daemon=True).start()
    answered.wait(wait_s)
    with decided:
        if state["taken"]:
            return descriptor
        state["abandoned"] = True
    return None
