"""``type_hints`` answers as ``typing.get_type_hints`` does (core/type_hints.py)."""

from __future__ import annotations

import subprocess
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import pytest

from astest_tasks.core import type_hints as type_hints_module
from astest_tasks.core.type_hints import type_hints


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


@pytest.mark.parametrize("record_type", [Plain, Shadowed, Derived, Nested, Marked])
def test_the_hints_are_get_type_hints_own(record_type: type) -> None:
    assert type_hints(record_type) == typing.get_type_hints(record_type)


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
    probe = (
        "import importlib, pathlib, sys, typing\n"
        "import astest_tasks\n"
        "from astest_tasks.core.type_hints import type_hints\n"
        "package = pathlib.Path(astest_tasks.__file__).parent\n"
        "for path in sorted(package.rglob('*.py')):\n"
        "    parts = path.relative_to(package.parent).with_suffix('').parts\n"
        "    if parts[-1] == '__init__':\n"
        "        parts = parts[:-1]\n"
        "    if parts[-1] != '__main__':\n"
        "        importlib.import_module('.'.join(parts))\n"
        "records = {value for name, module in list(sys.modules.items())\n"
        "           if name.startswith('astest_tasks') for value in vars(module).values()\n"
        "           if isinstance(value, type) and '__dataclass_fields__' in dir(value)}\n"
        "def answer(read, record):\n"
        "    try:\n"
        "        return read(record)\n"
        "    except NameError as error:  # a name only a type checker imports: both refuse\n"
        "        return type(error)\n"
        "differ = [r.__qualname__ for r in records\n"
        "          if answer(type_hints, r) != answer(typing.get_type_hints, r)]\n"
        "print(len(records), differ)\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=600
    )
    assert found.returncode == 0, found.stderr
    count, differ = found.stdout.split(" ", 1)
    assert int(count) >= 100 and differ.strip() == "[]"
