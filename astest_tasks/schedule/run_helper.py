"""The run ahead's helper: a second Python process that runs one spec while doit runs another.

``run_ahead.py`` decides what to hand over; this module is the process and how it is spoken to.
A job is a module-level function and its arguments, as doit hands an action to its ``-n``
workers: the run ahead sends the run task's own action (``run_action.execute_run``), so the
helper runs a spec exactly as a worker would, in a process of its own, and a big spec's guest
memory never adds to doit's.

- Jobs and answers are length-prefixed pickles: jobs on the helper's stdin, answers on the stdout
  it was started with. Its file descriptor 1 then points at stderr, so that nothing a runner or a
  library writes there can break an answer.
- What a job prints is captured and handed back with the answer; the run task prints it when
  doit reaches the task, where doit expects it.
- It ignores Ctrl-C (the terminal sends it to the whole process group: doit decides), and ends at
  once when its stdin closes: doit has exited or given up on it, and nobody would read the answer.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from astest_tasks.core.atomic import guard_writes, stop_writing
from astest_tasks.core.frozen import frozen
from astest_tasks.core.process_env import base_environ
from astest_tasks.run.external_runtime import end_external_runtimes

_HEADER = struct.Struct(">Q")


def write_frame(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """The next message; None at the end of the stream (also in the middle of a message: the
    writer died)."""
    header = _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    data = _read_exactly(stream, _HEADER.unpack(header)[0])
    return None if data is None else pickle.loads(data)


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    parts: list[bytes] = []
    missing = size
    while missing:
        part = stream.read(missing)
        if not part:
            return None
        parts.append(part)
        missing -= len(part)
    return b"".join(parts)


@frozen
class Job:
    number: int
    function: Callable[..., Any]  # module-level: it is pickled by name
    arguments: tuple[Any, ...]


@frozen
class Answer:
    number: int
    value: Any = None  # what the function returned
    stdout: str = ""
    stderr: str = ""
    problem: str = ""  # the traceback, when it raised


class RunHelper:
    """The parent's end: start the helper, hand it jobs, get each answer through a callback."""

    def __init__(self) -> None:
        # doit's own sys.path (the dodo's folder, a dodo's sys.path.insert, PYTHONPATH), so that
        # the helper imports the same astest_tasks and a runner script the same modules.
        search_path = [str(Path(__file__).resolve().parents[2]), *sys.path]
        bootstrap = (
            f"import sys; sys.path[:] = {search_path!r}; "
            "from astest_tasks.schedule.run_helper import main; main()"
        )
        self._process = subprocess.Popen(
            [sys.executable, "-c", bootstrap],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=base_environ(),  # not a running runner's mode env
        )
        self._lock = threading.Lock()
        self._waiting: dict[int, Callable[[Answer | None], None]] = {}
        self._numbers = 0
        self._alive = True
        self._reader = threading.Thread(target=self._read_answers, name="astest-run-helper")
        self._reader.daemon = True
        self._reader.start()

    @property
    def alive(self) -> bool:
        return self._alive

    def submit(
        self,
        function: Callable[..., Any],
        arguments: tuple[Any, ...],
        on_answer: Callable[[Answer | None], None],
    ) -> bool:
        """Hand ``function(*arguments)`` over; ``on_answer`` gets its answer, or None if the
        helper died first. False when the helper cannot take it (it has died)."""
        with self._lock:
            if not self._alive:
                return False
            self._numbers += 1
            number = self._numbers
            self._waiting[number] = on_answer
        stdin = self._process.stdin
        assert stdin is not None
        try:
            write_frame(stdin, Job(number, function, arguments))
        except Exception:  # a closed pipe, or a job that does not pickle
            with self._lock:
                self._waiting.pop(number, None)
            return False
        return True

    def _read_answers(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        try:
            while (answer := read_frame(stdout)) is not None:
                with self._lock:
                    callback = self._waiting.pop(answer.number, None)
                if callback is not None:
                    callback(answer)
        except Exception:  # an answer that does not unpickle: trust nothing after it
            self._process.kill()
        finally:
            with contextlib.suppress(OSError):
                stdout.close()  # this thread is its only reader
            with self._lock:
                self._alive = False
                orphans = list(self._waiting.values())
                self._waiting.clear()
            for callback in orphans:
                callback(None)

    def close(self, wait_s: float = 5.0) -> None:
        """Stop the helper: at the end of its stdin it exits, also in the middle of a job (and
        ends the runtime processes that job started); one that has not within ``wait_s`` is
        killed."""
        with contextlib.suppress(OSError, ValueError):
            if self._process.stdin is not None:
                self._process.stdin.close()
        try:
            self._process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    @property
    def pid(self) -> int:
        return self._process.pid

    def forget(self) -> None:
        """In a process forked from the parent (a doit -n worker): let go of the pipes, so that
        the helper still sees its stdin close when the parent's end closes."""
        for stream in (self._process.stdin, self._process.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()


def main() -> None:
    """The helper's own loop (started by ``RunHelper``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    guard_writes()
    # The pipes move to descriptors of our own (not inherited by children): a process a runner
    # starts must neither read a job nor write into an answer.
    jobs_in = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    with open(os.devnull, "rb") as nothing:
        os.dup2(nothing.fileno(), 0)
    os.dup2(2, 1)
    jobs: queue.Queue[Job] = queue.Queue()
    threading.Thread(target=_read_jobs, args=(jobs_in, jobs), daemon=True).start()
    while True:
        write_frame(answers, _run(jobs.get()))


def _read_jobs(stream: IO[bytes], jobs: queue.Queue[Job]) -> None:
    try:
        while (job := read_frame(stream)) is not None:
            jobs.put(job)
    finally:
        # doit closed our stdin, or died, or sent what we cannot read: whatever runs now would
        # be written for nobody. A file being written is finished first (core/atomic.py), and
        # none is begun after it, so ending here loses nothing and leaves no temporary file; a
        # runtime's processes (in a session of their own, which no Ctrl-C reaches) end with us.
        stop_writing()
        end_external_runtimes()
        os._exit(0)


def _run(job: Job) -> Answer:
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            value = job.function(*job.arguments)
    except BaseException:  # whatever it was, the parent does the work itself
        return Answer(
            job.number, None, stdout.getvalue(), stderr.getvalue(), traceback.format_exc()
        )
    return Answer(job.number, value, stdout.getvalue(), stderr.getvalue())
