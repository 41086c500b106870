"""The run ahead's helper process: its frames, and a real helper running real jobs."""

from __future__ import annotations

import io
import os
import queue
import select
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.schedule.run_helper import Answer, RunHelper, read_frame, write_frame

ANSWER_LIMIT_S = 120.0  # a ceiling for a broken helper, not a timing any test relies on


def talkative(text: str) -> int:
    """A job: prints on both streams, returns the helper's pid."""
    print(f"out: {text}")
    print(f"err: {text}", file=sys.stderr)
    return os.getpid()


def failing() -> None:
    raise ValueError("the job went wrong")


def forever() -> None:
    threading.Event().wait()


def _explode() -> None:
    raise ImportError("a job the helper cannot read")


class Unreadable:
    """Pickles fine; fails to unpickle on the other side."""

    def __reduce__(self) -> tuple[object, tuple[()]]:
        return (_explode, ())


def starts_a_runtime(fifo: str) -> None:
    """A job that runs an external runtime (a session of its own) that never ends; the runtime
    writes its pid into ``fifo`` once it runs."""
    from astest_tasks.run.channel import ProtocolChannel
    from astest_tasks.run.external_runtime import run_external

    script = (
        f"import os, threading; open({fifo!r}, 'w').write(str(os.getpid())); "
        "threading.Event().wait()"
    )
    run_external([sys.executable, "-c", script], Path.cwd(), os.environ, ProtocolChannel(None), 600)


def read_fifo(fifo: Path) -> str:
    """What a writer writes into ``fifo``, waiting for it to open and close it (in a thread,
    so that a writer that never comes fails the test instead of hanging it)."""
    text: list[str] = []
    reader = threading.Thread(target=lambda: text.append(fifo.read_text()), daemon=True)
    reader.start()
    reader.join(ANSWER_LIMIT_S)
    assert text, f"nothing was written into {fifo}"
    return text[0]


def ended(pid: int) -> bool:
    """Wait for a process that is not our child to end (its pidfd becomes readable)."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([descriptor], [], [], ANSWER_LIMIT_S)[0])
    finally:
        os.close(descriptor)


class Answers:
    """Collects a helper's answers in arrival order."""

    def __init__(self) -> None:
        self.received: queue.Queue[Answer | None] = queue.Queue()

    def __call__(self, answer: Answer | None) -> None:
        self.received.put(answer)

    def next(self) -> Answer | None:
        return self.received.get(timeout=ANSWER_LIMIT_S)


@pytest.fixture
def helper() -> Iterator[RunHelper]:
    started = RunHelper()
    yield started
    started.close()


def test_frames_carry_any_picklable_message_and_end_with_the_stream() -> None:
    stream = io.BytesIO()
    write_frame(stream, {"a": [1, 2.5, "three"]})
    write_frame(stream, ("second", None))
    whole = stream.getvalue()
    stream.seek(0)
    assert read_frame(stream) == {"a": [1, 2.5, "three"]}
    assert read_frame(stream) == ("second", None)
    assert read_frame(stream) is None
    # A writer that died in the middle of a message: no message, the end of the stream.
    torn = io.BytesIO(whole[:-3])
    assert read_frame(torn) == {"a": [1, 2.5, "three"]}
    assert read_frame(torn) is None


def test_a_job_runs_in_another_process_and_its_prints_come_back(helper: RunHelper) -> None:
    answers = Answers()
    assert helper.submit(talkative, ("hello",), answers)
    answer = answers.next()
    assert answer is not None and not answer.problem
    assert answer.value == helper.pid != os.getpid()
    assert answer.stdout == "out: hello\n"
    assert answer.stderr == "err: hello\n"
    # The same process takes the next job.
    assert helper.submit(talkative, ("again",), answers)
    second = answers.next()
    assert second is not None and second.value == helper.pid


def test_a_job_that_raises_answers_with_its_traceback(helper: RunHelper) -> None:
    answers = Answers()
    assert helper.submit(failing, (), answers)
    answer = answers.next()
    assert answer is not None and answer.value is None
    assert "ValueError: the job went wrong" in answer.problem
    assert helper.alive


def test_closing_ends_the_helper_also_in_the_middle_of_a_job(helper: RunHelper) -> None:
    answers = Answers()
    assert helper.submit(talkative, ("up",), answers)
    assert answers.next() is not None  # it is up and reading
    assert helper.submit(forever, (), answers)
    helper.close(wait_s=ANSWER_LIMIT_S)
    # It ended by itself at the end of its stdin: a kill would have left -9.
    assert helper._process.returncode == 0
    assert answers.next() is None  # the job's answer never came, and the caller is told so
    assert not helper.alive
    assert not helper.submit(talkative, ("late",), answers)


def test_a_helper_that_dies_answers_none_to_what_it_held(helper: RunHelper) -> None:
    answers = Answers()
    assert helper.submit(forever, (), answers)
    helper._process.kill()
    assert answers.next() is None
    assert not helper.alive


def test_a_job_that_does_not_pickle_is_refused(helper: RunHelper) -> None:
    answers = Answers()
    assert not helper.submit(lambda: None, (), answers)
    assert helper.submit(talkative, ("still here",), answers)
    assert answers.next() is not None


def test_a_job_the_helper_cannot_read_ends_it_and_nothing_waits_forever(
    helper: RunHelper,
) -> None:
    answers = Answers()
    assert helper.submit(talkative, (Unreadable(),), answers)
    assert answers.next() is None
    assert not helper.alive


def test_a_helper_ending_mid_job_ends_the_runtime_its_job_started(
    helper: RunHelper, tmp_path: Path
) -> None:
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    answers = Answers()
    assert helper.submit(starts_a_runtime, (str(fifo),), answers)
    runtime = int(read_fifo(fifo))
    helper.close(wait_s=ANSWER_LIMIT_S)
    assert helper._process.returncode == 0
    assert ended(runtime), "the runtime outlived the helper"
