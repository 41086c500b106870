"""A record's first ``__init__`` calls run without a compiled ``__init__``, and do what the
compiled one does; then the compiled one takes over (core/frozen_init.py).

Each check builds the same class body with ``@frozen`` and with ``@dataclass(frozen=True)``
and holds the two to the same answers, as tests/core/test_frozen.py does.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from dataclasses import InitVar, dataclass, field
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.core.frozen import frozen

ORDER: list[str] = []  # what the default factories and __post_init__ were called for, in order


def _made_tags() -> tuple[str, ...]:
    ORDER.append("tags")
    return ("made",)


def _made_seen() -> list[str]:
    ORDER.append("seen")
    return []


def sample(decorate: Any, with_docstring: bool = True) -> type[Any]:
    class Sample:
        kind: ClassVar[str] = "not a field"
        name: str
        size: float = 1.0
        tags: tuple[str, ...] = field(default_factory=_made_tags)
        note: str = field(default="", compare=False)
        seen: list[str] = field(default_factory=_made_seen, init=False, compare=False)
        fixed: str = field(default="fixed", init=False)
        derived: str = field(default="", init=False)

        def __post_init__(self) -> None:
            ORDER.append("post_init")
            object.__setattr__(self, "derived", f"{self.name}/{self.size}")

    if with_docstring:
        Sample.__doc__ = "Fields of every kind an __init__ sets."
    return decorate(Sample)  # type: ignore[no-any-return]


def twins(with_docstring: bool = True) -> tuple[type[Any], type[Any]]:
    return sample(frozen, with_docstring), sample(dataclass(frozen=True), with_docstring)


def is_compiled(record: type[Any]) -> bool:
    # dataclasses compiles the __init__ it writes from source text: "<string>"
    code = record.__dict__["__init__"].__code__
    return bool(code.co_filename == "<string>")


def state(record: object) -> dict[str, Any]:
    return dict(vars(record))


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("a",), {}),
    (("a", 2.5), {}),
    (("a", 2.5, ("x",), "n"), {}),
    (("a",), {"note": "n", "tags": ("y",)}),
    ((), {"name": "a", "size": 0.5}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_a_first_call_sets_what_the_compiled_init_sets_in_the_same_order(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    ours, theirs = twins()
    ORDER.clear()
    mine = ours(*args, **kwargs)
    my_order = list(ORDER)
    ORDER.clear()
    twin = theirs(*args, **kwargs)
    assert not is_compiled(ours), "the first call must not compile an __init__"
    assert state(mine) == state(twin)
    assert list(vars(mine)) == list(vars(twin))  # assigned in the same order
    assert my_order == ORDER
    assert repr(mine) == repr(twin)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((), {}),  # a missing argument
        (("a",), {"name": "b"}),  # given twice
        (("a",), {"unknown": 1}),
        (("a", 1.0, (), "n", "too many"), {}),
        (("a",), {"fixed": "init=False"}),
    ],
)
def test_a_call_that_does_not_fit_gets_dataclasses_own_error(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    ours, theirs = twins()
    with pytest.raises(TypeError) as expected:
        theirs(*args, **kwargs)
    with pytest.raises(TypeError) as got:
        ours(*args, **kwargs)
    assert str(got.value) == str(expected.value)
    assert is_compiled(ours)


def test_the_plain_init_stays_however_often_the_record_is_made() -> None:
    """The compiled __init__ sets each field through the guarded __setattr__, the plain one
    fills the __dict__ at once: it is the faster, and it stays."""
    ours, theirs = twins()
    for number in range(1000):
        size = float(number)
        assert state(ours(f"n{number}", size)) == state(theirs(f"n{number}", size))
    assert not is_compiled(ours)


def test_a_plain_subclass_calls_the_records_first_init_through_super() -> None:
    ours, theirs = twins()

    def with_extra(base: type[Any]) -> Any:
        class Extra(base):  # type: ignore[misc]
            def __init__(self, name: str) -> None:
                super().__init__(name, 9.0)
                self.extra = "own attribute"

        return Extra("a")

    mine, twin = with_extra(ours), with_extra(theirs)
    assert not is_compiled(ours)
    assert state(mine) == state(twin)


def test_a_subclass_with_its_own_setattr_gets_each_field_through_it() -> None:
    # As from @frozen's compiled __init__ (@dataclass(frozen=True)'s sets them past it).
    ours, compiled = sample(frozen), sample(frozen)
    inspect.signature(compiled)
    assert is_compiled(compiled)

    def recorded(base: type[Any]) -> list[str]:
        seen: list[str] = []

        class Watched(base):  # type: ignore[misc]
            def __setattr__(self, name: str, value: Any) -> None:
                seen.append(name)
                object.__setattr__(self, name, value)

        Watched("a", note="n")
        return seen

    assert recorded(ours) == recorded(compiled) == ["name", "size", "tags", "note", "seen"]
    assert not is_compiled(ours)


@pytest.mark.parametrize("early", ["extra", "name"])
def test_an_attribute_set_before_init_meets_the_guard_as_from_the_compiled_init(
    early: str,
) -> None:
    # A field set before __init__ may not be set again; any other attribute stays.
    ours, compiled = sample(frozen), sample(frozen)
    inspect.signature(compiled)

    def made(base: type[Any]) -> Any:
        class Early(base):  # type: ignore[misc]
            def __init__(self, name: str) -> None:
                object.__setattr__(self, early, "early")
                super().__init__(name)

        try:
            return vars(Early("a"))
        except dataclasses.FrozenInstanceError as refused:
            return str(refused)

    assert made(ours) == made(compiled)
    assert not is_compiled(ours)


@pytest.mark.parametrize("with_docstring", [True, False], ids=["docstring", "no docstring"])
def test_the_signature_and_docstring_are_dataclasses_before_the_init_is_compiled(
    with_docstring: bool,
) -> None:
    ours, theirs = twins(with_docstring)
    ours("made, not compiled")
    assert not is_compiled(ours)
    assert ours.__doc__ == theirs.__doc__
    assert ours("b").__doc__ == theirs("b").__doc__
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert is_compiled(ours), "reading the signature compiles the __init__ it describes"
    assert "__signature__" not in vars(ours)
    assert not hasattr(ours("c"), "__signature__")  # nor has an instance of a dataclass


def test_a_record_that_dataclasses_would_refuse_raises_its_error_at_first_use() -> None:
    def body() -> dict[str, Any]:
        return {"__annotations__": {"a": "int", "b": "int"}, "a": 0, "__doc__": "Bad."}

    with pytest.raises(TypeError) as theirs:
        dataclass(frozen=True)(type("Bad", (), body()))
    bad: type[Any] = frozen(type("Bad", (), body()))
    with pytest.raises(TypeError) as ours:
        bad(1, 2)
    assert str(ours.value) == str(theirs.value)


def test_threads_that_make_a_record_together_each_get_their_own_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ours, theirs = twins()
    compiles: list[str] = []
    real_dataclass = dataclasses.dataclass

    def counted(cls: type[Any], **options: Any) -> Any:
        if options.get("init", True):
            compiles.append(cls.__name__)
        return real_dataclass(cls, **options)

    monkeypatch.setattr(dataclasses, "dataclass", counted)
    start = threading.Barrier(8)
    made: list[Any] = []

    def use() -> None:
        start.wait(60)
        made.extend(ours(f"t{number}") for number in range(200))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert compiles == []
    assert sorted(state(record)["name"] for record in made) == sorted(
        state(theirs(f"t{number}"))["name"] for _ in range(8) for number in range(200)
    )


class Converted:
    """A descriptor-typed field's default (dataclasses' docs): it converts what is set."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, instance: object, owner: type | None = None) -> int:
        return 100 if instance is None else int(getattr(instance, self.slot))

    def __set__(self, instance: object, value: object) -> None:
        object.__setattr__(instance, self.slot, int(str(value)))


def _with_descriptor(decorate: Any) -> type[Any]:
    class Described:
        """A field whose default is a data descriptor."""

        name: str
        count: Converted = Converted()

    return decorate(Described)  # type: ignore[no-any-return]


def test_a_field_set_through_a_descriptor_goes_through_it_from_the_first_call() -> None:
    ours, theirs = _with_descriptor(frozen), _with_descriptor(dataclass(frozen=True))
    mine, twin = ours("a", "5"), theirs("a", "5")
    assert not is_compiled(ours)
    assert (mine.count, state(mine)) == (twin.count, state(twin)) == (5, {"name": "a", "_count": 5})


def _shadowed(base: type[Any], how: str) -> Any:
    if how == "slot":
        sub: type[Any] = type("Slotted", (base,), {"__slots__": ("size",)})
    else:
        sub = type("Fixed", (base,), {"size": property(lambda self: 42.0)})
    try:
        made = sub("a", 7.0)
    except AttributeError as refused:
        return ("refused", str(refused))
    return (made.size, {key: value for key, value in vars(made).items() if key != "size"})


@pytest.mark.parametrize("how", ["slot", "property"])
def test_a_subclass_slot_or_property_of_a_fields_name_is_set_as_by_the_compiled_init(
    how: str,
) -> None:
    ours, compiled = sample(frozen), sample(frozen)
    inspect.signature(compiled)
    assert _shadowed(ours, how) == _shadowed(compiled, how)
    assert not is_compiled(ours)


class ClassVariant:
    """A type whose name holds "ClassVar": an InitVar of it is still an InitVar."""


def _with_init_variable(decorate: Any) -> type[Any]:
    class Seeded:
        """A record with an InitVar, which __post_init__ takes."""

        size: int = 0
        seed: InitVar[ClassVariant | None] = None  # type: ignore[assignment]

        def __post_init__(self, seed: ClassVariant | None) -> None:
            object.__setattr__(self, "size", 1 if seed is None else 2)

    return decorate(Seeded)  # type: ignore[no-any-return]


def test_an_initvar_is_passed_to_post_init_whatever_its_types_name() -> None:
    ours, theirs = _with_init_variable(frozen), _with_init_variable(dataclass(frozen=True))
    assert state(ours()) == state(theirs()) == {"size": 1}
    assert state(ours(3, ClassVariant())) == state(theirs(3, ClassVariant())) == {"size": 2}


def test_a_field_called_self_is_an_argument_like_any_other() -> None:
    def body() -> dict[str, Any]:
        return {"__annotations__": {"self": "int", "other": "int"}, "other": 0, "__doc__": "S."}

    ours: type[Any] = frozen(type("Selfish", (), body()))
    theirs: type[Any] = dataclass(frozen=True)(type("Selfish", (), body()))
    assert state(ours(1, other=2)) == state(theirs(1, other=2))
    assert state(ours(self=3)) == state(theirs(self=3))
    assert not is_compiled(ours)
    with pytest.raises(TypeError) as expected:
        theirs(zz=1, self=2)
    with pytest.raises(TypeError) as got:
        ours(zz=1, self=2)
    assert str(got.value) == str(expected.value)


def test_a_record_has_no_signature_attribute_before_or_after_it_is_compiled() -> None:
    ours, theirs = twins()
    assert hasattr(ours, "__signature__") is hasattr(theirs, "__signature__") is False
    assert is_compiled(ours), "asking for it compiles the __init__ inspect would read instead"
    assert "__signature__" not in vars(ours)
    assert hasattr(ours, "__signature__") is False


def test_an_undocumented_record_whose_signature_cannot_be_read_is_documented_by_its_name() -> None:
    def body() -> dict[str, Any]:
        return {"__annotations__": {"a": "int"}, "__signature__": "not a Signature"}

    ours: type[Any] = frozen(type("Odd", (), body()))
    theirs: type[Any] = dataclass(frozen=True)(type("Odd", (), body()))
    assert ours.__doc__ == theirs.__doc__ == "Odd"


ARGUMENTS = (("name", "a"), ("size", 2.5), ("tags", ("x",)), ("note", "n"))
WRONG = (("fixed", "init=False"), ("unknown", 1), ("name", "twice"))


@settings(max_examples=200, deadline=None)
@given(
    by_place=st.integers(min_value=0, max_value=len(ARGUMENTS) + 1),
    by_name=st.lists(st.sampled_from(ARGUMENTS + WRONG), unique_by=lambda pair: pair[0]),
)
def test_any_call_sets_or_refuses_as_the_compiled_init(
    by_place: int, by_name: list[tuple[str, object]]
) -> None:
    """By place, by name, both, too few or too many: the plain __init__'s quick paths set what
    dataclasses' sets, in its order, or hand the call to it for its TypeError."""
    args = tuple(value for _, value in ARGUMENTS)[:by_place] + (("extra",) if by_place > 4 else ())
    kwargs = dict(by_name)
    ours, theirs = twins()
    answers: list[tuple[str, object, list[str]]] = []
    for record in (ours, theirs):
        ORDER.clear()
        try:
            made = record(*args, **kwargs)
        except TypeError as error:
            answers.append(("TypeError", str(error), list(ORDER)))
        else:
            answers.append((repr(made), list(vars(made).items()), list(ORDER)))
    assert answers[0] == answers[1]
