"""``@frozen`` behaves as ``@dataclass(frozen=True)`` does, with five of its methods shared.

Each check builds the same class body twice, once with ``@frozen`` and once with
``@dataclass(frozen=True)``, and holds the two to the same answers.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from astest_tasks.core.frozen import frozen

Decorator = Callable[[type[Any]], type[Any]]
BOTH: tuple[Decorator, ...] = (frozen, dataclass(frozen=True))
NAMES = ("frozen", "dataclass")


def sample(decorate: Decorator) -> type[Any]:
    class Sample:
        """Fields of every kind the shared methods must tell apart."""

        kind: ClassVar[str] = "not a field"
        name: str
        size: float = 1.0
        tags: tuple[str, ...] = ()
        note: str = field(default="", compare=False)
        secret: str = field(default="", repr=False)
        seen: list[str] = field(default_factory=list, hash=False)

    return decorate(Sample)


@pytest.fixture(params=BOTH, ids=NAMES)
def record_type(request: pytest.FixtureRequest) -> type[Any]:
    return sample(request.param)


def twins() -> tuple[type[Any], type[Any]]:
    return sample(frozen), sample(dataclass(frozen=True))


def test_repr_is_dataclasses_text() -> None:
    ours, theirs = twins()
    arguments = {"name": "a", "size": 2.5, "tags": ("x",), "note": "n", "secret": "s"}
    assert repr(ours(**arguments)) == repr(theirs(**arguments))
    assert (
        repr(ours("a")) == "sample.<locals>.Sample(name='a', size=1.0, tags=(), note='', seen=[])"
    )


def test_a_record_that_holds_itself_is_shown_with_an_ellipsis() -> None:
    ours, theirs = twins()
    mine, their = ours("a"), theirs("a")
    mine.seen.append(mine)
    their.seen.append(their)
    assert repr(mine) == repr(their)
    assert "seen=[...]" in repr(mine)


def test_equality_reads_the_compared_fields_only(record_type: type[Any]) -> None:
    assert record_type("a", note="one") == record_type("a", note="two")
    assert record_type("a") != record_type("b")
    assert record_type("a", tags=("x",)) != record_type("a")


def test_a_nan_field_compares_as_in_a_tuple(record_type: type[Any]) -> None:
    nan = math.nan
    assert record_type("a", size=nan) == record_type("a", size=nan)  # the same float object
    assert record_type("a", size=float("nan")) != record_type("a", size=float("nan"))


def test_another_class_is_never_equal_even_with_equal_fields() -> None:
    ours, theirs = twins()
    assert ours("a") != theirs("a")
    assert ours("a").__eq__(theirs("a")) is NotImplemented


def test_hashes_agree_with_dataclasses_and_follow_equality() -> None:
    ours, theirs = twins()
    assert hash(ours("a", 2.0, ("t",), seen=["x"])) == hash(theirs("a", 2.0, ("t",), seen=["y"]))
    assert hash(ours("a", note="one")) == hash(ours("a", note="two"))
    assert {ours("a"): 1}[ours("a")] == 1


@pytest.mark.parametrize("attribute", ["name", "note", "not_a_field"])
def test_assigning_after_init_raises_frozen_instance_error(
    record_type: type[Any], attribute: str
) -> None:
    record = record_type("a")
    with pytest.raises(
        dataclasses.FrozenInstanceError, match=f"cannot assign to field '{attribute}'"
    ):
        setattr(record, attribute, "b")
    assert getattr(record, attribute, None) != "b"


def test_deleting_a_field_raises_frozen_instance_error(record_type: type[Any]) -> None:
    record = record_type("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        del record.name
    assert record.name == "a"


def test_dataclasses_tools_see_a_frozen_dataclass(record_type: type[Any]) -> None:
    record = record_type("a", tags=("x",))
    assert [f.name for f in dataclasses.fields(record)] == [
        "name",
        "size",
        "tags",
        "note",
        "secret",
        "seen",
    ]
    assert dataclasses.replace(record, name="b") == record_type("b", tags=("x",))
    assert dataclasses.asdict(record)["tags"] == ("x",)
    params = record_type.__dataclass_params__
    assert (params.frozen, params.eq, params.repr) == (True, True, True)


@frozen
class Stored:
    """At module level, where pickle finds a class by its name."""

    name: str
    note: str = field(default="", compare=False)


def test_a_record_survives_pickling() -> None:
    record = Stored("a", note="n")
    copy = pickle.loads(pickle.dumps(record))
    assert (copy, copy.note) == (record, "n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.name = "b"


def test_methods_the_class_writes_itself_are_kept() -> None:
    @frozen
    class Own:
        value: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

    assert (repr(Own(1)), Own(1) == Own(2), hash(Own(1))) == ("own", True, 7)


def test_writing_setattr_is_refused_as_dataclasses_refuses_it() -> None:
    with pytest.raises(TypeError, match="cannot overwrite attribute __setattr__ in class Guarded"):

        @frozen
        class Guarded:
            value: int

            def __setattr__(self, name: str, value: object) -> None:
                object.__setattr__(self, name, value)


def test_subclasses_by_either_decorator_stay_frozen() -> None:
    @frozen
    class Base:
        name: str

    @dataclass(frozen=True)
    class Theirs(Base):
        size: int = 0

    @frozen
    class Ours(Base):
        size: int = 0

    for subclass in (Theirs, Ours):
        record = subclass("a", 2)
        assert record == subclass("a", 2)
        assert repr(record).endswith("(name='a', size=2)")
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, "size", 3)  # noqa: B010 (mypy refuses the plain assignment)


def test_a_frozen_dataclass_base_makes_the_subclass_its_own_frozen_dataclass() -> None:
    @dataclass(frozen=True)
    class Base:
        name: str

    @frozen
    class Sub(Base):
        size: int = 0

    record = Sub("a", 1)
    assert record == Sub("a", 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, "name", "b")  # noqa: B010 (mypy refuses the plain assignment)


def test_post_init_may_set_a_derived_field_once() -> None:
    @frozen
    class Derived:
        text: str
        length: int = field(init=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "length", len(self.text))

    record = Derived("abc")
    assert (record.length, record) == (3, Derived("abc"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, "length", 4)  # noqa: B010 (mypy refuses the plain assignment)
