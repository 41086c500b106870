"""One codec for the records we store: a frozen dataclass to plain JSON data and back.

The result files, fuzz results, build records, the report state and the summary's plan are each
a dataclass; their JSON is what ``encode`` makes of its fields, in field order, and ``decode``
reads it back by the fields' types (``typing.get_type_hints``, as core/type_hints.py reads
them): strings, integers, floats (an integer is read as one), booleans, enums by value, tuples
(``tuple[X, ...]`` or of fixed length), lists, ``Sequence`` (read as a tuple), dicts and
``Mapping`` with string keys, ``X | None``, nested dataclasses, and ``object``/``Any`` passed
through as they are.

These are our own files, so they are read strictly: a field of the wrong type is a
``RecordError`` that names it (``counts.tests_failed: should be an integer, not str``), which
the readers turn into "stale, run again". A missing field takes the field's default (a record
written before the field existed), and only a field without one is an error. Unknown fields are
ignored, as a newer writer may add some; ``unknown=REJECT`` refuses them where a record must be
exactly ours.

A field may be stored under another key, or left out while it holds its default (as as-test's
coverage points leave out their detailed keys): ``stored_as("parentHash", omit_default=True)``
as the field's metadata. A field the caller stores its own way (the suites of a result, stored
as rows) is left out of ``encode`` with ``leave_out`` and handed to ``decode`` with ``given``.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Final, Literal, TypeVar

from astest_tasks.core.frozen import frozen, is_record_type, record_fields
from astest_tasks.core.type_hints import type_hints

_METADATA_KEY: Final = "astest_tasks.records"

T = TypeVar("T")
Unknown = Literal["ignore", "reject"]
IGNORE: Final[Unknown] = "ignore"
REJECT: Final[Unknown] = "reject"


class RecordError(ValueError):
    """Stored data that is not the record it should be; the message names the field."""


@frozen
class _StoredAs:
    key: str | None
    omit_default: bool


# A field's storage when its metadata says nothing: under its name, always written.
_STORED_AS_NAMED: Final = _StoredAs(None, False)


def stored_as(key: str | None = None, *, omit_default: bool = False) -> dict[str, object]:
    """A field's metadata: its JSON key when not its name, and whether a field holding its
    default is left out of the JSON (and read back as the default)."""
    return {_METADATA_KEY: _StoredAs(key, omit_default)}


# -- encoding ---------------------------------------------------------------------------------


def encode(record: object, *, leave_out: Collection[str] = ()) -> dict[str, object]:
    """The record as JSON-ready data: a dict of its fields in order (minus ``leave_out``)."""
    data: dict[str, object] = {}
    for name, key, omitted in _writes(type(record)):
        value = getattr(record, name)
        if (omitted is not _KEEP and value == omitted) or name in leave_out:
            continue
        data[key] = value if type(value) in _AS_IS else _plain(value)
    return data


_AS_IS = frozenset((str, int, float, bool, type(None)))
_KEEP: Final = object()  # a field written whatever it holds


def _plain(value: object) -> object:
    if type(value) in _AS_IS:
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    return value  # a free-form field (object/Any): stored as given


# -- decoding ---------------------------------------------------------------------------------


def decode(
    record_type: type[T],
    data: object,
    *,
    given: Mapping[str, object] | None = None,
    unknown: Unknown = IGNORE,
    where: str = "",
) -> T:
    """The record ``encode`` made ``data`` of; ``given`` fields are taken as they are instead.

    Raises RecordError naming the field (under ``where``, e.g. ``"fuzzers[0]"``).
    """
    return typing.cast(T, _plan(record_type).read(data, where, given or {}, unknown))


_Reader = Callable[[object, str], object]


@frozen
class _Plan:
    record_type: type
    keys: frozenset[str]
    # (name, key, read, required) per field, as tuples that read's loop unpacks at once: every
    # result head of a call is read through here (issue 40)
    steps: tuple[tuple[str, str, _Reader, bool], ...]

    def read(
        self, data: object, where: str, given: Mapping[str, object], unknown: Unknown
    ) -> object:
        if not isinstance(data, Mapping):
            raise RecordError(f"{_at(where)}should be an object, not {_type_name(data)}")
        if unknown == REJECT:
            extra = sorted(str(key) for key in data if key not in self.keys)
            if extra:
                raise RecordError(f"{_at(where)}unknown field {', '.join(map(repr, extra))}")
        values: dict[str, object] = {}
        for name, key, read, required in self.steps:
            if name in given:
                values[name] = given[name]
            elif key in data:
                # _join, written out: a call per field cost more than the join
                values[name] = read(data[key], f"{where}.{key}" if where else key)
            elif required:
                raise RecordError(f"{_at(where)}has no {key!r} field")
        return self.record_type(**values)


_PLANS: dict[type, _Plan] = {}


def _plan(record_type: type) -> _Plan:
    plan = _PLANS.get(record_type)
    if plan is None:
        plan = _PLANS[record_type] = _make_plan(record_type)
    return plan


def _make_plan(record_type: type) -> _Plan:
    if not is_record_type(record_type):
        raise TypeError(f"{record_type.__name__} is not a dataclass")
    hints = type_hints(record_type)
    steps = []
    for field in record_fields(record_type):
        if not field.init:
            continue
        stored = field.metadata.get(_METADATA_KEY, _STORED_AS_NAMED)
        if stored.omit_default:
            _default_of(field)()  # a field left out while it holds its default must have one
        required = field.default is dataclasses.MISSING
        required = required and field.default_factory is dataclasses.MISSING
        steps.append((field.name, stored.key or field.name, _reader(hints[field.name]), required))
    return _Plan(
        record_type, frozenset(key for _name, key, _read, _required in steps), tuple(steps)
    )


# (name, key, the default that is left out or _KEEP) per field of each record class, for
# encode's loop. Apart from the decoding plans: a record that is only ever written (the summary's
# plan, handed to its action as it is) needs no type hints read and no readers made (issue 40),
# so a field of a type the codec cannot read is refused by decode alone.
_WRITES: dict[type, tuple[tuple[str, str, object], ...]] = {}


def _writes(record_type: type) -> tuple[tuple[str, str, object], ...]:
    writes = _WRITES.get(record_type)
    if writes is None:
        writes = _WRITES[record_type] = _make_writes(record_type)
    return writes


def _make_writes(record_type: type) -> tuple[tuple[str, str, object], ...]:
    if not is_record_type(record_type):
        raise TypeError(f"{record_type.__name__} is not a dataclass")
    writes = []
    for field in record_fields(record_type):
        if not field.init:
            continue
        stored = field.metadata.get(_METADATA_KEY, _STORED_AS_NAMED)
        omitted = _default_of(field)() if stored.omit_default else _KEEP
        writes.append((field.name, stored.key or field.name, omitted))
    return tuple(writes)


def _default_of(field: dataclasses.Field[Any]) -> Callable[[], object]:
    if field.default is not dataclasses.MISSING:
        value = field.default
        return lambda: value
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory

    def missing() -> object:
        raise RecordError(f"{field.name} has no default")

    return missing


def _reader(hint: object) -> _Reader:
    """How a value of type ``hint`` is read; a hint we cannot read is a TypeError at once."""
    if hint is str:
        return _exact(str, "a string")
    if hint is bool:
        return _exact(bool, "true or false")
    if hint is int:
        return _read_int
    if hint is float:
        return _read_float
    if hint is type(None):
        return _read_none
    if hint is object or hint is Any:
        return lambda value, where: value
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum_reader(hint)
    if is_record_type(hint):
        return _record_reader(typing.cast(type, hint))
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        return _optional_reader(hint, arguments)
    if origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return _sequence_reader(_reader(arguments[0]), tuple)
        return _fixed_tuple_reader(tuple(_reader(argument) for argument in arguments))
    if origin is list:
        return _sequence_reader(_reader(arguments[0]), list)
    if origin is Sequence:
        return _sequence_reader(_reader(arguments[0]), tuple)
    if origin in (dict, Mapping) and arguments[0] is str:
        return _mapping_reader(_reader(arguments[1]))
    raise TypeError(f"records cannot store a field of type {hint!r}")


_NOTHING_GIVEN: Final[Mapping[str, object]] = types.MappingProxyType({})


def _record_reader(record_type: type) -> _Reader:
    # The plan is looked up when a value is read, not now: a record may hold itself (a tree).
    def read(value: object, where: str) -> object:
        return _plan(record_type).read(value, where, _NOTHING_GIVEN, IGNORE)

    return read


def _exact(kind: type, expected: str) -> _Reader:
    def read(value: object, where: str) -> object:
        if type(value) is not kind:
            raise _wrong(where, expected, value)
        return value

    return read


def _read_int(value: object, where: str) -> object:
    if type(value) is not int:
        raise _wrong(where, "an integer", value)
    return value


def _read_float(value: object, where: str) -> object:
    if type(value) is float:
        # Python's json reads NaN and Infinity, which JSON has not and we never write: a file
        # that holds one was written by something else (a time of nan would reach the reports).
        if not math.isfinite(value):
            raise RecordError(f"{_at(where)}is not a finite number")
        return value
    if type(value) is int:
        try:
            return float(value)
        except OverflowError:  # JSON's integers have no bound, a float's do
            raise RecordError(f"{_at(where)}is a number too large to read") from None
    raise _wrong(where, "a number", value)


def _read_none(value: object, where: str) -> object:
    if value is not None:
        raise _wrong(where, "null", value)
    return None


def _enum_reader(enum_type: type[enum.Enum]) -> _Reader:
    by_value = {member.value: member for member in enum_type}
    choices = ", ".join(str(value) for value in by_value)

    def read(value: object, where: str) -> object:
        try:
            return by_value[value]
        except (KeyError, TypeError):  # TypeError: an unhashable value (a list, an object)
            raise RecordError(f"{_at(where)}should be one of {choices}, not {value!r}") from None

    return read


def _optional_reader(hint: object, arguments: tuple[object, ...]) -> _Reader:
    others = [argument for argument in arguments if argument is not type(None)]
    if len(others) != 1 or len(arguments) != 2:
        raise TypeError(f"records store only X | None unions, not {hint!r}")
    inner = _reader(others[0])
    return lambda value, where: None if value is None else inner(value, where)


def _sequence_reader(item: _Reader, make: Callable[[list[object]], object]) -> _Reader:
    def read(value: object, where: str) -> object:
        if not isinstance(value, list | tuple):
            raise _wrong(where, "a list", value)
        return make([item(entry, f"{where}[{index}]") for index, entry in enumerate(value)])

    return read


def _fixed_tuple_reader(items: tuple[_Reader, ...]) -> _Reader:
    def read(value: object, where: str) -> object:
        if not isinstance(value, list | tuple) or len(value) != len(items):
            raise _wrong(where, f"a list of {len(items)}", value)
        return tuple(
            read_item(entry, f"{where}[{index}]")
            for index, (read_item, entry) in enumerate(zip(items, value, strict=True))
        )

    return read


def _mapping_reader(item: _Reader) -> _Reader:
    def read(value: object, where: str) -> object:
        if not isinstance(value, Mapping):
            raise _wrong(where, "an object", value)
        return {
            _text_key(key, where): item(entry, _join(where, str(key)))
            for key, entry in value.items()
        }

    return read


def _text_key(key: object, where: str) -> str:
    if not isinstance(key, str):
        raise RecordError(f"{_at(where)}should have only string keys, not {key!r}")
    return key


def _wrong(where: str, expected: str, value: object) -> RecordError:
    return RecordError(f"{_at(where)}should be {expected}, not {_type_name(value)}")


def _type_name(value: object) -> str:
    names = {type(None): "null", bool: "a boolean", str: "a string", list: "a list"}
    names |= {dict: "an object", int: "an integer", float: "a number", tuple: "a list"}
    return names.get(type(value), type(value).__name__)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _at(where: str) -> str:
    return f"{where}: " if where else ""
