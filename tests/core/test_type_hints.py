"""``type_hints`` answers as ``typing.get_type_hints`` does (core/type_hints.py)."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Generic, Required

import pytest

from astest_tasks.core import type_hints as type_hints_module
from astest_tasks.core.type_hints import type_hints
from tests.package_probe import probe_package


class Plain:
    name: str
    size: int | None
    tags: tuple[str, ...]
    extra: Mapping[str, Sequence[float]]
    anything: Any
    nothing: None
    itself: Plain | None


class Shadowed:
    """A class attribute named like a module name: the module's is read first."""

    Plain = int
    inner: Plain  # type: ignore[valid-type]


class Base:
    base: str


class Derived(Base):
    own: int


class Nested:
    later: list["Later"]  # noqa: UP037 (a text inside the generic, for get_type_hints to read)


class Marked:
    size: Annotated[int, "a mark"]


class Later:
    pass


class Wrapped:
    size: Required[int]  # type: ignore[valid-type]


class GenericItself:
    kind: Generic  # type: ignore[valid-type]


@typing.no_type_check
class Unchecked:
    size: int


BROKEN = [
    type("NoExpression", (), {"__annotations__": {"size": "1 +"}}),
    type("Empty", (), {"__annotations__": {"size": ""}}),
]


def _answer(read: Any, record_type: type) -> object:
    try:
        return read(record_type)
    except Exception as error:  # get_type_hints' own refusal, which type_hints must share
        return type(error)


@pytest.mark.parametrize(
    "record_type",
    [Plain, Shadowed, Derived, Nested, Marked, Wrapped, GenericItself, Unchecked, *BROKEN],
)
def test_the_hints_are_get_type_hints_own(record_type: type) -> None:
    assert _answer(type_hints, record_type) == _answer(typing.get_type_hints, record_type)


def test_a_text_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []

    def counting(text: str, filename: str, mode: str) -> types.CodeType:
        compiled.append(text)
        return compile(text, filename, mode)

    monkeypatch.setattr(type_hints_module, "_COMPILED", {})
    monkeypatch.setattr(type_hints_module, "compile", counting, raising=False)
    type_hints(Plain)
    type_hints(Plain)
    assert sorted(compiled) == sorted(set(Plain.__annotations__.values()))


def test_every_record_of_the_package_has_get_type_hints_own_hints() -> None:
    printed = probe_package(
        "import typing\n"
        "from astest_tasks.core.type_hints import type_hints\n"
        "records = {c for c in classes if '__dataclass_fields__' in dir(c)}\n"
        "def answer(read, record):\n"
        "    try:\n"
        "        return read(record)\n"
        "    except NameError as error:  # a name only a type checker imports: both refuse\n"
        "        return type(error)\n"
        "differ = [r.__qualname__ for r in records\n"
        "          if answer(type_hints, r) != answer(typing.get_type_hints, r)]\n"
        "print(len(records), differ)\n"
    )
    count, differ = printed.split(" ", 1)
    assert int(count) >= 100 and differ.strip() == "[]"
