"""What the run ahead hands to its helper, when, and when the run task takes what it did.

The helper here is a stand-in that answers as told (the real one: test_run_helper.py; both
together on real specs: tests/integration/test_run_ahead.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import pytest

from astest_tasks.core.setup_checks import Check
from astest_tasks.model.results import SpecResult
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.limits import ModeLimits
from astest_tasks.run.run_request import RunRequest
from astest_tasks.run.runtime import RunnableSpec, RuntimeDefaults, SpecLimits
from astest_tasks.run.runtime_request import RuntimeRequest
from astest_tasks.schedule import run_ahead, run_helper, scheduler
from astest_tasks.schedule.run_ahead import RunAhead
from astest_tasks.schedule.run_helper import Answer
from astest_tasks.tasks.checks import NotHandedOver
from tests.conftest import make_run_request, make_spec_result

SESSION = "session-1"
WAIT_LIMIT_S = 120.0  # a ceiling for a broken test, not a timing any test relies on


@dataclass(frozen=True)
class StillRuntime(RuntimeDefaults):
    """Never asked to run here: the stand-in helper answers instead."""

    anywhere: bool = True

    @classmethod
    def claim(cls, request: RuntimeRequest) -> StillRuntime | None:
        return None  # a stand-in: never chosen for a mode's command

    def doctor_checks(self, project_root: Path, scope: str) -> list[Check]:
        return []  # a stand-in: never seen by the doctor

    @property
    def description(self) -> str:
        return "a runtime that is never run"

    @property
    def runs_in_any_process(self) -> bool:
        return self.anywhere

    def input_files(self, project_root: Path) -> list[str]:
        return ["runner.py"]

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        raise AssertionError("not run in these tests")


class StandInHelper:
    """Records what it is handed; answers when the test says so."""

    made: ClassVar[list[StandInHelper]] = []
    first_made: ClassVar[threading.Event] = threading.Event()

    def __init__(self) -> None:
        self.jobs: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self.callbacks: list[Callable[[Answer | None], None]] = []
        self.alive = True
        self.handed = threading.Event()
        StandInHelper.made.append(self)
        StandInHelper.first_made.set()

    def submit(
        self,
        function: Callable[..., Any],
        arguments: tuple[Any, ...],
        on_answer: Callable[[Answer | None], None],
    ) -> bool:
        self.jobs.append((function, arguments))
        self.callbacks.append(on_answer)
        self.handed.set()
        return True

    def answer(self, answer: Answer | None) -> None:
        self.callbacks[-1](answer)

    def close(self) -> None:
        self.alive = False


@pytest.fixture(autouse=True)
def stand_in_helper(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    StandInHelper.made = []
    StandInHelper.first_made = threading.Event()
    monkeypatch.setattr(run_helper, "RunHelper", StandInHelper)  # run_ahead imports it late
    # No run in these tests is long unless a test says so.
    monkeypatch.setattr(run_ahead, "LONG_RUN_S", 3600.0)
    yield


def hands_over(ahead: RunAhead, run: RunRequest, session: str = SESSION) -> bool:
    """Whether the run after ``run`` goes to the helper as doit starts running ``run``."""
    with ahead.running_here(run, session, execute, always=False):
        return ahead.hand_next(run, session, execute)


def execute(run: RunRequest, session: str) -> tuple[SpecResult, dict[str, str]]:
    raise AssertionError("only handed to the helper, which is a stand-in")


def spec_run(root: Path, spec_id: str, **changes: Any) -> RunRequest:
    return replace(make_run_request(root, spec_id, StillRuntime()), **changes)


def build(ahead: RunAhead, run: RunRequest, *, changed: bool = False) -> None:
    """What doit's build of the spec leaves: its module and record, noted as built."""
    root = Path(run.project_root)
    for name in (run.files.wasm, run.files.build_record):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"built " + name.encode())
    ahead.note_built(str(root / run.files.build_record), changed=changed)


def planned(root: Path, *spec_ids: str) -> tuple[RunAhead, list[RunRequest]]:
    (root / "runner.py").write_text("# the runner\n")
    ahead = RunAhead()
    runs = [spec_run(root, spec_id) for spec_id in spec_ids]
    for run in runs:
        ahead.plan(run, SESSION)
    return ahead, runs


def passed(run: RunRequest) -> SpecResult:
    return make_spec_result(
        run.spec.spec_id,
        spec=run.spec.path,
        mode=run.spec.mode,
        target=run.spec.target,
        session=SESSION,
    )


def test_what_a_run_task_planned_beside_its_request_reaches_the_helper(tmp_path: Path) -> None:
    """A run with a remote cache takes its key after the request and the session; the helper
    must get it too, or the handed-over run would neither ask the cache nor store in it."""
    (tmp_path / "runner.py").write_text("# the runner\n")
    ahead = RunAhead()
    first, second = spec_run(tmp_path, "a"), spec_run(tmp_path, "b")
    ahead.plan(first, SESSION, ("key of a",))
    ahead.plan(second, SESSION, ("key of b",))
    build(ahead, first)
    build(ahead, second)
    assert hands_over(ahead, first)
    (helper,) = StandInHelper.made
    assert helper.jobs == [(execute, (second, SESSION, "key of b"))]


def test_the_next_built_run_goes_to_the_helper_and_its_task_takes_what_it_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ahead, (first, second, _) = planned(tmp_path, "a", "b", "c")
    build(ahead, first)
    build(ahead, second)
    assert hands_over(ahead, first)
    (helper,) = StandInHelper.made
    assert helper.jobs == [(execute, (second, SESSION))]
    assert ahead.handed_over(first, SESSION) is None  # only the handed-over run finds it
    assert ahead.handed_over(second, "another session") is None

    handed = ahead.handed_over(second, SESSION)
    assert handed is not None
    state = {"snapshots": "state after the run"}
    helper.answer(Answer(1, (passed(second), state), stdout="printed\n", stderr="warned\n"))
    assert handed.outcome() == (passed(second), state)
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("printed\n", "warned\n")
    assert ahead.handed_over(second, SESSION) is None  # taken once


def test_a_run_goes_over_only_when_doit_is_bound_to_run_it_as_we_would(tmp_path: Path) -> None:
    ahead, (first, second) = planned(tmp_path, "a", "b")
    assert not hands_over(ahead, first), "its spec is not built yet"
    (tmp_path / second.files.wasm).parent.mkdir(parents=True)
    (tmp_path / second.files.build_record).write_text("{}")
    assert not hands_over(ahead, first), "built, but not by this doit"
    build(ahead, second)
    assert not hands_over(ahead, second), "nothing is planned after the last"
    (tmp_path / second.files.result).write_text("{}")
    assert not hands_over(ahead, first), "a result: doit may find it current"
    build(ahead, second, changed=True)
    assert hands_over(ahead, first), "a new build record: doit runs it again"
    (helper,) = StandInHelper.made
    helper.answer(Answer(1, (passed(second), {})))
    build(ahead, second, changed=False)

    creating = replace(second.snapshots, update=SnapshotUpdate.CREATE)
    for changes in ({"snapshots": creating}, {"runtime": StillRuntime(anywhere=False)}):
        other = RunAhead()
        changed = replace(second, **changes)
        other.plan(first, SESSION)
        other.plan(changed, SESSION)
        build(other, changed)
        assert not hands_over(other, first), changes
    assert len(StandInHelper.made) == 1
    (tmp_path / second.files.result).unlink()
    assert hands_over(ahead, first), "no result: doit runs it"


def test_one_run_at_a_time_goes_to_the_helper(tmp_path: Path) -> None:
    ahead, (first, second, third) = planned(tmp_path, "a", "b", "c")
    for run in (second, third):
        build(ahead, run)
    assert hands_over(ahead, first)
    assert not hands_over(ahead, second), "the helper is busy"
    (helper,) = StandInHelper.made
    helper.answer(Answer(1, (passed(second), {})))
    # Answered but never taken (doit went past it): the helper is free again.
    assert hands_over(ahead, second)
    assert [arguments[0].spec.spec_id for _, arguments in helper.jobs] == ["b", "c"]


def test_the_task_runs_the_spec_itself_when_an_input_changed_or_the_helper_failed(
    tmp_path: Path,
) -> None:
    ahead, (first, second, third) = planned(tmp_path, "a", "b", "c")
    build(ahead, second)
    assert hands_over(ahead, first)
    (helper,) = StandInHelper.made
    handed = ahead.handed_over(second, SESSION)
    assert handed is not None
    helper.answer(Answer(1, (passed(second), {})))
    # The runner was edited after the helper started: doit's own run must see the edit.
    runner = tmp_path / "runner.py"
    runner.write_text("# edited while the spec ran\n")
    os.utime(runner, ns=(1, 1))
    assert handed.outcome() is None

    build(ahead, third)
    assert hands_over(ahead, second)
    handed = ahead.handed_over(third, SESSION)
    assert handed is not None
    helper.answer(None)  # the helper died
    assert handed.outcome() is None

    ahead.plan(spec_run(tmp_path, "d"), SESSION)
    build(ahead, spec_run(tmp_path, "d"))
    assert hands_over(ahead, third)
    handed = ahead.handed_over(spec_run(tmp_path, "d"), SESSION)
    assert handed is not None
    helper.answer(Answer(3, None, problem="Traceback: ValueError"))
    assert handed.outcome() is None


def test_a_run_going_past_the_limit_hands_the_next_over_and_a_short_one_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead, (first, second, third) = planned(tmp_path, "a", "b", "c")
    for run in (second, third):
        build(ahead, run)
    monkeypatch.setattr(run_ahead, "LONG_RUN_S", 3600.0)
    with ahead.running_here(first, SESSION, execute, always=False):
        pass  # over long before the limit
    assert StandInHelper.made == []

    monkeypatch.setattr(run_ahead, "LONG_RUN_S", 0.0)
    with ahead.running_here(first, SESSION, execute, always=False):
        # The run goes on until the helper has the next one: past any limit. (The timer's
        # thread makes the helper.)
        assert StandInHelper.first_made.wait(WAIT_LIMIT_S)
        made = StandInHelper.made[0]
        assert made.handed.wait(WAIT_LIMIT_S)
    assert made.jobs[0][1] == (second, SESSION)
    made.answer(Answer(1, (passed(second), {})))

    # From then on the next run goes over as a run starts, with no wait.
    monkeypatch.setattr(run_ahead, "LONG_RUN_S", 3600.0)
    with ahead.running_here(second, SESSION, execute, always=False):
        assert [arguments[0] for _, arguments in made.jobs] == [second, third]


def test_always_hands_over_from_the_first_run_and_a_new_session_starts_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead, (first, second) = planned(tmp_path, "a", "b")
    build(ahead, second)
    monkeypatch.setattr(run_ahead, "LONG_RUN_S", 3600.0)
    with ahead.running_here(first, SESSION, execute, always=True):
        (helper,) = StandInHelper.made
        assert helper.jobs == [(execute, (second, SESSION))]

    ahead.plan(first, "session-2")
    ahead.plan(second, "session-2")
    assert not hands_over(ahead, first, "session-2"), "built in the last session only"


def test_the_switch_reads_off_always_and_the_default() -> None:
    assert run_ahead.switch({}) == "1"
    assert run_ahead.switch({"ASTEST_RUN_AHEAD": "0"}) == "0"
    assert run_ahead.switch({"ASTEST_RUN_AHEAD": " Always "}) == "always"


def test_no_helper_to_be_had_leaves_every_run_to_doit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process() -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(run_helper, "RunHelper", no_process)
    ahead, (first, second, third) = planned(tmp_path, "a", "b", "c")
    for run in (second, third):
        build(ahead, run)
    assert not hands_over(ahead, first)
    assert ahead.handed_over(second, SESSION) is None
    assert not hands_over(ahead, second), "it does not try again"


def test_a_timer_that_fires_after_its_run_hands_nothing_over(tmp_path: Path) -> None:
    ahead, (first, second) = planned(tmp_path, "a", "b")
    build(ahead, second)
    with ahead.running_here(first, SESSION, execute, always=False):
        pass
    # doit has moved on to the next task (which may be the very run the timer would hand over):
    # what the timer does now changes nothing.
    ahead._long_run(first, SESSION, execute)
    assert StandInHelper.made == []
    assert ahead.handed_over(second, SESSION) is None


def test_doit_runs_a_handed_over_task_whatever_its_files_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead, (first, second) = planned(tmp_path, "a", "b")
    planner = scheduler.Scheduler()
    planner.run_ahead = ahead
    monkeypatch.setattr(scheduler, "_current", planner)
    build(ahead, second)
    key = ("astest", "wasi", "b")
    assert NotHandedOver(key, SESSION)()
    assert hands_over(ahead, first)
    # The helper may write the result before doit reaches the task, which would then look up
    # to date by its files: the task's NotHandedOver check reads it through the scheduler.
    assert not NotHandedOver(key, SESSION)()
    assert NotHandedOver(key, "another session")()
    assert NotHandedOver(("astest", "wasi", "a"), SESSION)()


def test_a_helper_that_never_answers_is_given_up_after_the_specs_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_ahead, "ANSWER_MARGIN_S", 0.0)
    (tmp_path / "runner.py").write_text("# the runner\n")
    ahead = RunAhead()
    first = spec_run(tmp_path, "a")
    second = spec_run(tmp_path, "b", limits=ModeLimits(0.001, 1024.0, 64.0))
    for run in (first, second):
        ahead.plan(run, SESSION)
    build(ahead, second)
    assert hands_over(ahead, first)
    handed = ahead.handed_over(second, SESSION)
    assert handed is not None
    assert handed.outcome() is None  # never answered: the task runs the spec itself
    (helper,) = StandInHelper.made
    assert not helper.alive, "a helper that hangs is ended, so it writes nothing later"


def test_a_new_session_ends_a_helper_still_running_an_untaken_run(tmp_path: Path) -> None:
    ahead, (first, second) = planned(tmp_path, "a", "b")
    build(ahead, second)
    assert hands_over(ahead, first)
    (helper,) = StandInHelper.made
    # Watch mode's next cycle: the run handed over in the last one was never taken, and its
    # result must not land over the new cycle's own.
    ahead.plan(first, "session-2")
    assert not helper.alive
    assert ahead.handed_over(second, SESSION) is None
