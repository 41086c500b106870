"""``CallSignature``: what inspect (and so doit) reads of a callable object, built once."""

from __future__ import annotations

import inspect

from astest_tasks.core.call_signature import CallSignature


class Check:
    """As our uptodate checks are: made with arguments, called with others."""

    __signature__ = CallSignature()

    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, task: object, values: dict[str, object]) -> bool:
        return bool(task and values)


class Plain:
    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, task: object, values: dict[str, object]) -> bool:
        return bool(task and values)


def test_an_instance_has_the_signature_of_calling_it_without_self() -> None:
    assert inspect.signature(Check("a")) == inspect.signature(Plain("a"))
    assert list(inspect.signature(Check("a")).parameters) == ["task", "values"]


def test_the_signature_is_built_once_for_every_instance_of_the_class() -> None:
    assert inspect.signature(Check("a")) is inspect.signature(Check("b"))
    assert inspect.signature(Plain("a")) is not inspect.signature(Plain("a"))  # inspect's own


def test_the_class_keeps_the_signature_of_making_an_instance() -> None:
    assert inspect.signature(Check) == inspect.signature(Plain)
    assert list(inspect.signature(Check).parameters) == ["path"]


def test_a_subclass_gets_the_signature_of_its_own_call() -> None:
    class Later(Check):
        def __call__(self) -> bool:  # type: ignore[override]
            return True

    assert list(inspect.signature(Check("a")).parameters) == ["task", "values"]
    assert list(inspect.signature(Later("a")).parameters) == []


def test_a_call_of_any_shape_gets_inspects_own_answer() -> None:
    class Loose:
        __signature__ = CallSignature()

        def __call__(*args: object) -> bool:
            return bool(args)

    class PlainLoose:
        def __call__(*args: object) -> bool:
            return bool(args)

    assert inspect.signature(Loose()) == inspect.signature(PlainLoose())
    assert str(inspect.signature(Loose())) == "(*args: 'object') -> 'bool'"
