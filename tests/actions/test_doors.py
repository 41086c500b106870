"""The doors doit's dicts name: each takes exactly its action's parameters and hands the call
through, so that doit passes and gets the same as if the dict named the action itself."""

from __future__ import annotations

import importlib
import inspect

import pytest

from astest_tasks.actions import doors

ACTIONS = {
    "build_spec": "astest_tasks.actions.build_action",
    "run_spec": "astest_tasks.actions.run_action",
    "summarize": "astest_tasks.actions.summary_action",
    "show_summary_from_worker": "astest_tasks.actions.summary_action",
    "run_fuzz_file": "astest_tasks.actions.fuzz_actions",
    "summarize_fuzz": "astest_tasks.actions.fuzz_summary_action",
    "show_fuzz_summary_from_worker": "astest_tasks.actions.fuzz_summary_action",
    "remove_run_leftovers": "astest_tasks.actions.cleaning",
    "remove_fuzz_leftovers": "astest_tasks.actions.cleaning",
    "remove_summary_leftovers": "astest_tasks.actions.cleaning",
    "remove_orphaned_crash_records": "astest_tasks.actions.cleaning",
}


def test_every_door_is_listed_here() -> None:
    defined = {
        name
        for name, value in vars(doors).items()
        if inspect.isfunction(value) and value.__module__ == doors.__name__
    }
    assert defined == set(ACTIONS)


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_a_door_takes_its_actions_parameters(name: str) -> None:
    action = getattr(importlib.import_module(ACTIONS[name]), name)
    door_parameters = inspect.signature(getattr(doors, name)).parameters
    action_parameters = inspect.signature(action).parameters
    assert [(p.name, p.kind, p.default) for p in door_parameters.values()] == [
        (p.name, p.kind, p.default) for p in action_parameters.values()
    ]


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_a_door_hands_the_call_and_its_answer_through(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = importlib.import_module(ACTIONS[name])
    calls: list[tuple[object, ...]] = []

    def stand_in(*arguments: object) -> object:
        calls.append(arguments)
        return {"answer": name}

    monkeypatch.setattr(module, name, stand_in)
    count = len(inspect.signature(getattr(doors, name)).parameters)
    arguments = tuple(f"argument {index}" for index in range(count))
    answer = getattr(doors, name)(*arguments)
    assert calls == [arguments]
    if name.startswith(("show_", "remove_")):
        assert answer is None  # the worker's printers and the clean actions return nothing
    else:
        assert answer == {"answer": name}
