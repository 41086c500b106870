"""``@frozen`` behaves as ``@dataclass(frozen=True)`` does, with five of its methods shared.

Most checks build the same class body twice, once with ``@frozen`` and once with
``@dataclass(frozen=True)``, and hold the two to the same answers; the rest check ``@frozen``
against what dataclasses documents.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import pickle
import sys
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import pytest

from astest_tasks.core import frozen as frozen_module
from astest_tasks.core.frozen import frozen, is_record_type, record_fields
from tests.package_probe import probe_package

Decorator = Callable[[type[Any]], type[Any]]
BOTH: tuple[Decorator, ...] = (frozen, dataclass(frozen=True))
NAMES = ("frozen", "dataclass")


def sample(decorate: Decorator, class_var: bool = True) -> type[Any]:
    class Sample:
        """Fields of every kind the shared methods must tell apart. With a ClassVar, dataclasses
        makes a ``@frozen`` one; without, it is made from its body (with an init=False field)."""

        if class_var:
            kind: ClassVar[str] = "not a field"
        name: str
        size: float = 1.0
        tags: tuple[str, ...] = ()
        note: str = field(default="", compare=False)
        secret: str = field(default="", repr=False)
        seen: list[str] = field(default_factory=list, hash=False)
        if not class_var:
            made: int = field(default=0, init=False)

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


def test_a_nan_field_compares_as_dataclasses_compares_it() -> None:
    # 3.11 and 3.12 compare fields as tuples (the same NaN object is equal to itself there)
    ours, theirs = twins()
    same = math.nan
    assert (ours("a", size=same) == ours("a", size=same)) == (
        theirs("a", size=same) == theirs("a", size=same)
    )
    assert ours("a", size=float("nan")) != ours("a", size=float("nan"))


@frozen
class Single:
    """One compared field: its key is a one-item tuple, not the value itself."""

    value: object
    note: str = field(default="", compare=False, hash=True)


def test_a_record_of_one_compared_field_compares_and_hashes_by_it() -> None:
    assert Single(1) == Single(1, note="other")
    assert Single(1) != Single(2)
    assert Single(math.nan) != Single(float("nan"))
    # a field with hash=True is hashed even when it is not compared, as dataclasses does
    assert hash(Single(1, note="a")) == hash((1, "a"))
    assert hash(Single(1, note="a")) != hash(Single(1, note="b"))


def test_a_subclass_instance_is_not_equal_to_its_base_record() -> None:
    class Plain(Single):
        """Not a dataclass of its own: inherits the shared methods."""

    assert Single(1) != Plain(1)
    assert Plain(1) == Plain(1)


def test_a_class_that_writes_eq_alone_is_still_hashed_by_its_fields() -> None:
    ours, theirs = (
        decorate(type("OwnEq", (), {"__annotations__": {"x": "int"}, "__eq__": _always_equal}))
        for decorate in BOTH
    )
    assert (hash(ours(3)), ours(3) == ours(4)) == (hash(theirs(3)), True)


def _always_equal(self: object, other: object) -> bool:
    return True


def test_a_class_that_writes_identity_eq_and_objects_hash_keeps_both() -> None:
    """How config/keys.py's declarations, whose fields need not be hashable, compare."""
    body = {"__annotations__": {"x": "list[int]"}, "__eq__": object.__eq__}
    body["__hash__"] = object.__hash__
    ours, theirs = (decorate(type("ById", (), dict(body))) for decorate in BOTH)
    for record_type in (ours, theirs):
        one, other = record_type([1]), record_type([1])
        assert (one == one, one == other, {one: 1}[one]) == (True, False, 1)
        assert hash(one) == object.__hash__(one)


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


@pytest.mark.parametrize("attribute", ["name", "not_a_field"])
def test_deleting_raises_frozen_instance_error(record_type: type[Any], attribute: str) -> None:
    record = record_type("a")
    with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{attribute}'"):
        delattr(record, attribute)
    assert record.name == "a"


@pytest.mark.parametrize("decorate", BOTH, ids=NAMES)
def test_a_field_init_does_not_set_cannot_be_set_later(decorate: Decorator) -> None:
    defaulted = decorate(
        type(
            "Defaulted",
            (),
            {"__annotations__": {"a": "int", "b": "int"}, "b": field(default=0, init=False)},
        )
    )
    record = defaulted(1)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'b'"):
        record.b = 5
    assert (record.b, hash(record)) == (0, hash(defaulted(1)))


@pytest.mark.parametrize("decorate", BOTH, ids=NAMES)
def test_a_field_init_makes_from_a_factory_is_set_once(decorate: Decorator) -> None:
    made = decorate(
        type(
            "Made",
            (),
            {
                "__annotations__": {"items": "list[int]"},
                "items": field(default_factory=list, init=False),
            },
        )
    )
    record = made()
    assert record.items == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.items = [1]


@pytest.mark.parametrize("decorate", BOTH, ids=NAMES)
def test_a_plain_subclass_may_set_its_own_attributes_but_no_field(decorate: Decorator) -> None:
    base = sample(decorate)

    class Extended(base):  # type: ignore[misc,valid-type]
        def __init__(self, name: str) -> None:
            super().__init__(name)
            self.extra = "mine"

    record = Extended("a")
    assert record.extra == "mine"
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.name = "b"
    del record.extra
    assert not hasattr(record, "extra")


def test_a_non_frozen_dataclass_base_is_refused_as_dataclasses_refuses_it() -> None:
    @dataclass
    class Mutable:
        name: str

    for decorate in BOTH:
        with pytest.raises(
            TypeError, match="cannot inherit frozen dataclass from a non-frozen one"
        ):
            decorate(type("Sub", (Mutable,), {"__annotations__": {"size": "int"}, "size": 0}))


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


@pytest.mark.parametrize("method", ["__setattr__", "__delattr__"])
def test_writing_a_guard_is_refused_as_dataclasses_refuses_it(method: str) -> None:
    messages = []
    for decorate in BOTH:
        body = {"__annotations__": {"value": "int"}, method: lambda *_args: None}
        with pytest.raises(
            TypeError, match=f"overwrite attribute {method} in class Guarded"
        ) as refused:
            decorate(type("Guarded", (), body))
        messages.append(str(refused.value))
    assert messages[0] == messages[1]


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


# Made on first use: a record class is defined cheaply and made (fields, __init__) when first read.


@pytest.fixture
def makings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the classes dataclasses makes from now on, in order."""
    made: list[str] = []
    real = dataclasses.dataclass

    def counting(cls: type[Any], **options: Any) -> Any:
        made.append(cls.__name__)
        return real(cls, **options)

    monkeypatch.setattr(dataclasses, "dataclass", counting)
    return made


@pytest.fixture
def shapes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the records given their shape from now on (made from the body or by
    dataclasses), in order."""
    made: list[str] = []
    real = frozen_module._RecordShape

    def counting(owner: type[Any], fields: Any) -> Any:
        made.append(owner.__name__)
        return real(owner, fields)

    monkeypatch.setattr(frozen_module, "_RecordShape", counting)
    return made


def test_a_record_is_made_when_first_used_and_only_once(
    makings: list[str], shapes: list[str]
) -> None:
    @frozen
    class Later:
        name: str

    assert (makings, shapes) == ([], []), "defining a record must not make it"
    assert Later("a") == Later("a")
    assert (makings, shapes) == ([], ["Later"]), "its instances need no dataclasses"
    init, shape = Later.__init__, vars(Later)["__frozen_shape__"]
    assert [f.name for f in dataclasses.fields(Later)] == ["name"]
    assert [f.name for f in dataclasses.fields(Later)] == ["name"]
    assert makings == ["Later"], "dataclasses' tools make it, once"
    assert (Later.__init__, vars(Later)["__frozen_shape__"]) == (init, shape), "and keep these"
    assert repr(Later("b")).endswith("Later(name='b')")


def light_sample(decorate: Decorator) -> type[Any]:
    return sample(decorate, class_var=False)


def test_a_record_made_from_its_body_behaves_as_dataclasses_makes_it(
    makings: list[str],
) -> None:
    ours, theirs = light_sample(frozen), light_sample(dataclass(frozen=True))
    makings.clear()
    arguments: dict[str, Any] = {"name": "a", "size": 2.5, "tags": ("x",), "note": "n"}
    mine, their = ours(**arguments, secret="s"), theirs(**arguments, secret="s")
    assert repr(mine) == repr(their)
    assert (hash(mine), mine == ours(**arguments)) == (hash(their), their == theirs(**arguments))
    assert mine != ours("b") and mine.made == their.made == 0
    wrong_calls: tuple[tuple[object, ...], ...] = ((), ("a", 1.0, (), "", "", [], 0), ("a",))
    for wrong in wrong_calls:
        keywords = {"name": "b"} if wrong == ("a",) else {}
        with pytest.raises(TypeError) as raised:
            ours(*wrong, **keywords)
        with pytest.raises(TypeError) as expected:
            theirs(*wrong, **keywords)
        assert str(raised.value) == str(expected.value)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'made'"):
        mine.made = 1
    assert makings == ["Sample"], "only the wrong calls compile __init__, with dataclasses"
    assert list(map(repr, dataclasses.fields(ours))) == list(map(repr, dataclasses.fields(theirs)))


def test_record_fields_are_dataclasses_fields_without_dataclasses_making_the_record(
    makings: list[str],
) -> None:
    ours = light_sample(frozen)
    assert [repr(f) for f in record_fields(ours)] == [
        repr(f) for f in dataclasses.fields(light_sample(dataclass(frozen=True)))
    ]
    assert makings == [], "the fields of a record made from its body need no dataclasses"
    with_class_var, theirs = twins()
    assert list(map(repr, record_fields(with_class_var))) == list(
        map(repr, dataclasses.fields(theirs))
    )
    assert is_record_type(ours) and is_record_type(theirs)
    assert not is_record_type(ours("a")) and not is_record_type(int)
    with pytest.raises(TypeError, match="dataclass"):
        record_fields(int)


def test_a_dataclass_subclass_of_a_record_has_its_own_fields() -> None:
    base = light_sample(frozen)
    sub: type[Any] = dataclass(frozen=True)(
        type("Sub", (base,), {"__annotations__": {"extra": "int"}, "extra": 0})
    )
    assert [f.name for f in record_fields(sub)][-1] == "extra"
    assert record_fields(sub) == dataclasses.fields(sub)


@pytest.mark.parametrize(
    "body",
    [
        "import typing\nclass R:\n    a: int\n    b: typing.ClassVar[int] = 1\n",
        "from typing import ClassVar as Fixed\nclass R:\n    a: int\n    b: Fixed[int] = 1\n",
        "from dataclasses import InitVar\nclass R:\n    a: int\n    b: InitVar[int] = 1\n",
        "from dataclasses import KW_ONLY\nclass R:\n    a: int\n    _: KW_ONLY\n    b: int = 1\n",
        "from dataclasses import field\nclass R:\n    a: int\n    b: int = field(kw_only=True)\n",
        "class R:\n    a: int\n    b: list = []\n",
        "from dataclasses import field\nclass R:\n    a: int\n    b = field(default=1)\n",
        "class Base:\n    __slots__ = ('a',)\nclass R(Base):\n    a: int\n",
        "class R:\n    a: int = 1\n    b: int\n    def __init__(self, a, b=2):\n        pass\n",
        "class R:\n    a: object = staticmethod(len)\n",
        "class R:\n    mro: int\n",
    ],
    ids=[
        "ClassVar",
        "alias",
        "InitVar",
        "KW_ONLY",
        "kw_only",
        "mutable",
        "no-type",
        "slot",
        "own-init-order",
        "descriptor",
        "type-attribute",
    ],
)
def test_a_record_its_body_may_not_tell_is_made_by_dataclasses(
    monkeypatch: pytest.MonkeyPatch, makings: list[str], body: str
) -> None:
    """What the body alone might read otherwise than dataclasses (a pseudo-field, even one
    under another name), or what dataclasses refuses: dataclasses makes it, with its answer."""
    answers = []
    for decorate in BOTH:
        module = types.ModuleType("records_of_a_body")
        monkeypatch.setitem(sys.modules, "records_of_a_body", module)
        exec("from __future__ import annotations\n" + body, module.__dict__)
        try:
            record = decorate(module.R)
            answers.append(repr(record(1)).rpartition(".")[2])
        except (TypeError, ValueError) as error:
            answers.append(f"{type(error).__name__}: {error}")
    assert answers[0] == answers[1]
    assert "R" in makings, "the record must be made by dataclasses"


def test_a_record_of_another_module_without_future_annotations_is_made_by_dataclasses(
    makings: list[str],
) -> None:
    ours: type[Any] = frozen(type("Typed", (), {"__annotations__": {"a": int}}))
    assert repr(ours(1)).endswith("Typed(a=1)")
    assert makings == ["Typed"]


def _dataclass_subclass(base: type[Any]) -> Any:
    return dataclass(frozen=True)(type("Sub", (base,), {}))


def _first_uses() -> dict[str, Callable[[type[Any]], object]]:
    class Plain:
        pass

    return {
        "an instance": lambda cls: repr(cls("a", tags=("x",))),
        "fields": lambda cls: [f.name for f in dataclasses.fields(cls)],
        "is_dataclass": dataclasses.is_dataclass,
        "the parameters": lambda cls: repr(cls.__dataclass_params__),
        "the docstring": lambda cls: cls.__doc__,
        "match args": lambda cls: cls.__match_args__,
        "the signature": lambda cls: str(inspect.signature(cls)),
        "a plain subclass": lambda cls: repr(type("Sub", (cls,), {})("a")),
        "a dataclass subclass": lambda cls: repr(_dataclass_subclass(cls)("a")),
        "isinstance": lambda cls: isinstance(Plain(), cls),
    }


@pytest.mark.parametrize("use", sorted(_first_uses()))
def test_whatever_is_read_first_sees_what_dataclasses_made(use: str) -> None:
    first_use = _first_uses()[use]
    ours, theirs = twins()
    assert first_use(ours) == first_use(theirs)
    assert repr(ours("b")) == repr(theirs("b"))


def test_an_instance_made_before_the_class_compares_hashes_and_shows_as_any_other() -> None:
    # What pickle.loads, copy and quick_expectation do: an instance from __new__ and its
    # __dict__, with the class not made yet.
    ours, theirs = twins()
    state = {"name": "a", "size": 1.0, "tags": (), "note": "", "secret": "s", "seen": []}
    unmade, twin = object.__new__(ours), object.__new__(theirs)
    unmade.__dict__.update(state)
    twin.__dict__.update(state)
    assert (repr(unmade), hash(unmade)) == (repr(twin), hash(twin))
    assert unmade == ours("a", secret="s", note="not compared")
    with pytest.raises(dataclasses.FrozenInstanceError):
        unmade.name = "b"


def test_threads_that_first_use_a_record_together_make_it_once(
    makings: list[str], shapes: list[str]
) -> None:
    @frozen
    class Shared:
        name: str

    start = threading.Barrier(8)
    made: list[Shared] = []

    def use() -> None:
        start.wait(60)
        made.append(Shared("a"))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert (makings, shapes) == ([], ["Shared"])
    assert made == [Shared("a")] * 8


def test_a_record_that_cannot_be_made_fails_every_use_with_dataclasses_error() -> None:
    def body() -> dict[str, Any]:
        return {"__annotations__": {"a": "int", "b": "int"}, "a": 0}

    with pytest.raises(TypeError) as theirs:
        dataclass(frozen=True)(type("Bad", (), body()))
    bad: type[Any] = frozen(type("Bad", (), body()))
    for use in (lambda: bad(1, 2), lambda: dataclasses.fields(bad), lambda: bad.__doc__):
        with pytest.raises(TypeError) as ours:  # at first use, and at every use after it
            use()
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RecursionError])
def test_a_making_stopped_halfway_leaves_the_class_to_be_made_again(
    monkeypatch: pytest.MonkeyPatch, stop: type[BaseException]
) -> None:
    # Ctrl-C (or SIGTERM, which core/interrupts.py turns into one), or the recursion limit
    # reached by a first use deep in a call stack: the next use must still find a record.
    ours, theirs = twins()
    real = dataclasses.dataclass

    def stopped(cls: type[Any], **options: Any) -> Any:
        monkeypatch.setattr(dataclasses, "dataclass", real)
        raise stop

    monkeypatch.setattr(dataclasses, "dataclass", stopped)
    with pytest.raises(stop):
        ours("a")
    assert (repr(ours("a")), ours.__doc__) == (repr(theirs("a")), theirs.__doc__)
    assert list(map(repr, dataclasses.fields(ours))) == list(map(repr, dataclasses.fields(theirs)))


@pytest.mark.parametrize("made_by", ["its body", "dataclasses"])
def test_a_thread_that_uses_a_record_being_made_waits_for_it(
    monkeypatch: pytest.MonkeyPatch, made_by: str
) -> None:
    """Another thread uses the record while the first is making it: it must wait and get the
    whole record, never a class with part of it (``object.__init__``, no fields)."""

    @frozen
    class Raced:
        name: str
        size: int = 1

    @frozen
    class RacedWithClassVar:  # a ClassVar: made by dataclasses
        kind: ClassVar[str] = "not a field"
        name: str
        size: int = 1

    record: Any = Raced if made_by == "its body" else RacedWithClassVar
    second_waits, inside = threading.Event(), threading.Event()
    real_lock = frozen_module._MAKING

    class WatchedLock:
        """The making lock, telling when the second thread reaches it."""

        def __enter__(self) -> None:
            if threading.current_thread() is not threading.main_thread():
                second_waits.set()
            real_lock.acquire()

        def __exit__(self, *_exc: object) -> None:
            real_lock.release()

    real = frozen_module._RecordShape

    def slow(owner: type[Any], fields: Any) -> Any:  # both makings give the record its shape
        inside.set()
        assert second_waits.wait(60), "the second thread never reached the lock"
        return real(owner, fields)

    monkeypatch.setattr(frozen_module, "_MAKING", WatchedLock())
    monkeypatch.setattr(frozen_module, "_RecordShape", slow)
    seen: list[object] = []

    def second() -> None:
        assert inside.wait(60)
        try:
            seen.extend([repr(record("b", 2)), dataclasses.is_dataclass(record)])
        except Exception as error:
            seen.append(error)

    thread = threading.Thread(target=second)
    thread.start()
    first = record("a")
    thread.join(60)
    assert seen == [repr(record("b", 2)), True]
    assert first == record("a", 1)


def test_before_first_use_a_fields_class_attribute_reads_as_once_made() -> None:
    def body() -> dict[str, Any]:
        return {
            "__annotations__": {"a": "int", "note": "str", "items": "list[int]", "b": "int"},
            "note": field(default="n"),
            "items": field(default_factory=list),
            "b": field(default=0, init=False),
        }

    ours: type[Any] = frozen(type("Defaults", (), body()))
    theirs: type[Any] = dataclass(frozen=True)(type("Defaults", (), body()))
    assert (ours.note, hasattr(ours, "items")) == (theirs.note, hasattr(theirs, "items"))
    unmade = object.__new__(ours)  # as pickle or copy brings one in
    unmade.__dict__.update(a=1, note="x", items=[])
    assert unmade.b == 0
    assert "__frozen_pending__" in vars(ours), "nothing above may have made the record"


def test_an_empty_docstring_gets_the_signature_as_dataclasses_writes_it() -> None:
    def body() -> dict[str, Any]:
        return {"__annotations__": {"value": "int"}, "__doc__": ""}

    ours: type[Any] = frozen(type("Empty", (), body()))
    theirs: type[Any] = dataclass(frozen=True)(type("Empty", (), body()))
    assert ours.__doc__ == theirs.__doc__ == "Empty(value: 'int')"


def test_a_record_whose_base_watches_subclasses_is_made_at_once_and_seen_once() -> None:
    # A scratch copy of the class would be one more subclass to the base's registry.
    registry: list[str] = []

    class Registered:
        def __init_subclass__(cls, **kwargs: Any) -> None:
            super().__init_subclass__(**kwargs)
            registry.append(cls.__qualname__.rpartition(".")[2])

    @frozen
    class Entry(Registered):
        name: str

    assert registry == ["Entry"]
    assert "__frozen_pending__" not in vars(Entry)
    assert repr(Entry("a")).endswith("Entry(name='a')")
    assert registry == ["Entry"]


def test_a_generic_record_is_made_when_first_used_as_dataclasses_makes_it(
    makings: list[str],
) -> None:
    """Generic's __init_subclass__ only sets the class's own parameters, so a scratch copy of a
    generic record is harmless: it waits for its first use like any other."""
    item = TypeVar("item")

    def generic(decorate: Decorator) -> type[Any]:
        class Box(Generic[item]):
            value: item
            label: str = ""

        return decorate(Box)

    ours, theirs = generic(frozen), generic(dataclass(frozen=True))
    makings.clear()
    assert "__frozen_pending__" in vars(ours)
    assert repr(ours(1, "a")).endswith("Box(value=1, label='a')")
    assert (ours(1) == ours(1), hash(ours(1)) == hash(theirs(1))) == (True, True)
    assert makings == [], "made from its body"
    assert ours.__parameters__ == theirs.__parameters__ == (item,)
    assert list(map(repr, dataclasses.fields(ours))) == list(map(repr, dataclasses.fields(theirs)))
    assert ours[int](2) == ours(2)


def test_a_record_whose_module_is_gone_says_why_it_cannot_be_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = types.ModuleType("scripted_records")
    monkeypatch.setitem(sys.modules, "scripted_records", module)
    exec(
        "from astest_tasks.core.frozen import frozen\n@frozen\nclass Late:\n    a: int\n",
        module.__dict__,
    )
    monkeypatch.delitem(sys.modules, "scripted_records")
    with pytest.raises(TypeError, match="module scripted_records is no longer imported"):
        module.Late(1)


def test_every_record_of_the_package_can_be_made() -> None:
    """A record's mistakes (a field without a default after one with) surface when it is made,
    not when its module is imported: make every record, in a fresh interpreter where nothing
    has used them yet."""
    printed = probe_package(
        "import dataclasses\n"
        "pending = {c for c in classes if '__frozen_pending__' in c.__dict__}\n"
        "for record in pending:\n"
        "    dataclasses.fields(record)\n"
        "left = [r for r in pending if '__frozen_pending__' in r.__dict__]\n"
        "print(len(pending), len(left))\n"
    )
    pending, left = map(int, printed.split())
    assert pending >= 100, "most records are not made when their module is imported"
    assert left == 0


def test_every_record_of_the_package_made_from_its_body_agrees_with_dataclasses() -> None:
    """The fields and the plain ``__init__`` read off each record's body are those dataclasses
    makes, for every record of the package (in a fresh interpreter, none made yet)."""
    printed = probe_package(
        "import dataclasses\n"
        "from astest_tasks.core import frozen\n"
        "from astest_tasks.core.frozen_init import plan_for, plan_of\n"
        "pending = {c for c in classes if '__frozen_pending__' in c.__dict__}\n"
        "def fields(found):\n"
        "    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr,\n"
        "             f.hash, f.compare, dict(f.metadata), f.kw_only, f._field_type)\n"
        "            for f in found]\n"
        "def plan(made):\n"
        "    return made and (made.steps, made.required, made.positions, made.post_init,\n"
        "                     made.at_once)\n"
        "covered = []\n"
        "for record in pending:\n"
        "    body = vars(record)['__frozen_pending__'].namespace\n"
        "    ours = frozen._fields_of_body(record, body)\n"
        "    if ours is None:\n"
        "        continue\n"
        "    covered.append(record)\n"
        "    theirs = dataclasses.fields(record)\n"
        "    if fields(ours) != fields(theirs) or (\n"
        "        plan(plan_of(body, record, ours)) != plan(plan_for(body, record, theirs))):\n"
        "        print('differs:', record.__module__, record.__qualname__)\n"
        "print(len(pending), len(covered))\n"
    )
    *differ, counts = printed.splitlines()
    assert differ == []
    pending, covered = map(int, counts.split())
    assert covered >= pending * 0.9, "most records are made from their body"


def test_an_undocumented_record_reads_the_docstring_dataclasses_writes() -> None:
    def body() -> dict[str, Any]:
        return {"__annotations__": {"value": "int"}}

    ours: type[Any] = frozen(type("Plain", (), body()))
    theirs: type[Any] = dataclass(frozen=True)(type("Plain", (), body()))
    assert ours.__doc__ == theirs.__doc__ == "Plain(value: 'int')"


def test_a_subclass_that_writes_its_own_init_reaches_the_records_through_super() -> None:
    ours, theirs = twins()
    answers = []
    for base in (ours, theirs):

        class Named(base):  # type: ignore[valid-type,misc]
            def __init__(self, name: str) -> None:
                super().__init__(name.upper(), tags=("sub",))

        answers.append((repr(Named("a")), Named("a") == Named("a")))
    assert answers[0] == answers[1]
    assert answers[0][0].endswith("Named(name='A', size=1.0, tags=('sub',), note='', seen=[])")
