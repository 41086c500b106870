"""``@frozen``: our records' decorator, a frozen dataclass that is cheap to define.

Why not ``@dataclass(frozen=True)`` itself: on Python 3.11, dataclasses writes each of a frozen
record's six methods (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``) as source text and compiles it with an ``exec`` of its own, about 0.48 ms a
class. A ``doit`` call with nothing to do defines some 120 records before doit runs a task, and
those compiles were about 40 ms of its 0.25 s (docs/performance.md). Here dataclasses writes only
``__init__`` (about 0.12 ms a class), and every record shares the other five methods, written once
below, which behave as the generated ones do:

- equal when of the very same class and their compared fields are equal (a field with
  ``field(compare=False)`` is left out), else ``NotImplemented``;
- hashed by the fields dataclasses would hash (compared ones, or ``field(hash=True)``), so equal
  records have equal hashes and a record is a dict key as before;
- shown as ``ClassName(field=value, ...)``, leaving out ``field(repr=False)``, with ``...`` for a
  record that contains itself;
- frozen: assigning a field again, or any attribute that is not a field, or deleting one, raises
  ``dataclasses.FrozenInstanceError``. (The guard lets a field that is not yet set be set once,
  which is how ``__init__`` sets them; ``__post_init__`` may still set a derived field with
  ``object.__setattr__``, as with a frozen dataclass.)

Type checkers read ``@frozen`` as ``@dataclass(frozen=True)`` (``dataclass_transform``), so an
assignment to a record's field is a mypy error as well. ``dataclasses.fields``, ``replace`` and
``asdict`` work unchanged: a record is a dataclass. A method the class writes itself is kept, as
dataclasses keeps it. Records compared by identity or ordered use ``@dataclass`` directly.
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar, dataclass_transform

_T = TypeVar("_T")
_Key = Callable[[object], tuple[object, ...]]

# Where each record class keeps what its shared methods read: set by ``frozen``, once per class.
_PLAN: Final = "__frozen_plan__"


class _Plan:
    """A record class's field names, as the shared methods need them (a plain class: this
    module exists to define fewer dataclasses)."""

    __slots__ = ("compared", "fields", "hashed", "shown")

    def __init__(self, fields: Sequence[dataclasses.Field[Any]]) -> None:
        self.fields = frozenset(field.name for field in fields)
        self.shown = tuple(field.name for field in fields if field.repr)
        self.compared = _tuple_of([field.name for field in fields if field.compare])
        # dataclasses' own rule for which fields a generated __hash__ reads, in field order
        self.hashed = _tuple_of([field.name for field in fields if _hashed(field)])


def _tuple_of(names: Sequence[str]) -> _Key:
    """The named attributes as a tuple, always a tuple (``attrgetter`` of one name is not)."""
    if len(names) >= 2:
        return operator.attrgetter(*names)
    if len(names) == 1:
        (name,) = names
        return lambda record: (getattr(record, name),)
    return lambda _record: ()


def _hashed(field: dataclasses.Field[Any]) -> bool:
    return bool(field.compare if field.hash is None else field.hash)


def _plan(record: object) -> _Plan:
    plan: _Plan = getattr(type(record), _PLAN)
    return plan


def _equal(self: object, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    compared = _plan(self).compared
    return compared(self) == compared(other)


def _hash(self: object) -> int:
    return hash(_plan(self).hashed(self))


@reprlib.recursive_repr()
def _repr(self: object) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _plan(self).shown)
    return f"{type(self).__qualname__}({shown})"


def _assign_once(self: object, name: str, value: object) -> None:
    if name in self.__dict__ or name not in _plan(self).fields:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _refuse_delete(self: object, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _keeps_own_hash(namespace: dict[str, Any]) -> bool:
    """Whether the class wrote its own ``__hash__`` (dataclasses' rule: a class that writes
    ``__eq__`` alone gets ``__hash__ = None`` from Python, which is not its own)."""
    own = namespace.get("__hash__", dataclasses.MISSING)
    return not (own is dataclasses.MISSING or (own is None and "__eq__" in namespace))


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type[_T]) -> type[_T]:
    """``cls`` as a frozen dataclass whose shared methods cost nothing to define (see above)."""
    if any(_is_frozen_dataclass(base) for base in cls.__mro__[1:]):
        # dataclasses requires a frozen base's subclass to be frozen in its own way
        return dataclasses.dataclass(cls, frozen=True)
    namespace = dict(cls.__dict__)
    for refused in ("__setattr__", "__delattr__"):
        if refused in namespace:  # as @dataclass(frozen=True) refuses them
            raise TypeError(f"cannot overwrite attribute {refused} in class {cls.__name__}")
    record_type = dataclasses.dataclass(cls, repr=False, eq=False)
    setattr(record_type, _PLAN, _Plan(dataclasses.fields(record_type)))  # type: ignore[arg-type]
    shared: dict[str, Callable[..., object]] = {
        "__setattr__": _assign_once,
        "__delattr__": _refuse_delete,
    }
    if "__repr__" not in namespace:
        shared["__repr__"] = _repr
    if "__eq__" not in namespace:
        shared["__eq__"] = _equal
    if not _keeps_own_hash(namespace):
        shared["__hash__"] = _hash
    for name, method in shared.items():
        setattr(record_type, name, method)
    # Say what the record is, so that dataclasses (a subclass's @dataclass(frozen=True), say)
    # sees a frozen dataclass with a repr and an equality, as it would have made it.
    params = getattr(record_type, "__dataclass_params__")  # noqa: B009 (not typed)
    params.repr = params.eq = params.frozen = True
    return record_type


def _is_frozen_dataclass(cls: type) -> bool:
    return bool(getattr(getattr(cls, "__dataclass_params__", None), "frozen", False))
