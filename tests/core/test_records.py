"""The stored-record codec: dataclasses to plain JSON data and back, read strictly."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum

import pytest

from astest_tasks.core.records import REJECT, RecordError, decode, encode, stored_as


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


class Level(Enum):
    LOW = 1
    HIGH = 2


@dataclass(frozen=True)
class Leaf:
    name: str
    weight: float = 0.0


@dataclass(frozen=True)
class Tree:
    label: str
    count: int
    ratio: float
    ok: bool
    colour: Colour
    level: Level
    leaves: tuple[Leaf, ...]
    pair: tuple[int, str]
    names: list[str]
    tags: Sequence[str]
    sizes: dict[str, int]
    times: Mapping[str, float]
    parent: Leaf | None
    note: str | None
    children: tuple[Tree, ...] = ()
    extra: object = None
    renamed: str = field(default="", metadata=stored_as("renamedKey"))
    detail: int = field(default=0, metadata=stored_as("detailKey", omit_default=True))


def tree(**changes: object) -> Tree:
    values: dict[str, object] = {
        "label": "root",
        "count": 3,
        "ratio": 0.5,
        "ok": True,
        "colour": Colour.BLUE,
        "level": Level.HIGH,
        "leaves": (Leaf("a", 1.5), Leaf("b")),
        "pair": (7, "seven"),
        "names": ["x", "y"],
        "tags": ("t",),
        "sizes": {"s": 1},
        "times": {"t": 2.5},
        "parent": Leaf("p"),
        "note": None,
        "children": (),
        "extra": {"free": [1, "form"]},
        "renamed": "r",
        "detail": 4,
    }
    values.update(changes)
    return Tree(**values)  # type: ignore[arg-type]


def round_trip(record: Tree) -> Tree:
    return decode(Tree, json.loads(json.dumps(encode(record))))


def test_every_supported_type_round_trips_through_json_text() -> None:
    record = tree(children=(tree(label="child", parent=None, note="n"),))
    assert round_trip(record) == record


def test_encoding_is_plain_json_data_in_field_order() -> None:
    data = encode(tree())
    assert list(data)[:4] == ["label", "count", "ratio", "ok"]
    assert data["colour"] == "blue"  # enums by value
    assert data["level"] == 2
    assert data["leaves"] == [{"name": "a", "weight": 1.5}, {"name": "b", "weight": 0.0}]
    assert data["pair"] == [7, "seven"]
    assert data["tags"] == ["t"]
    assert data["renamedKey"] == "r" and "renamed" not in data
    assert data["detailKey"] == 4


def test_a_field_left_out_at_its_default_reads_back_as_the_default() -> None:
    data = encode(tree(detail=0))
    assert "detailKey" not in data
    assert decode(Tree, data).detail == 0


def test_sequences_read_back_as_the_declared_kind() -> None:
    restored = round_trip(tree())
    assert isinstance(restored.leaves, tuple) and isinstance(restored.tags, tuple)
    assert isinstance(restored.names, list)
    assert isinstance(restored.pair, tuple)


def test_an_integer_reads_as_a_float_field() -> None:
    data = encode(tree())
    data["ratio"] = 2
    restored = decode(Tree, data)
    assert restored.ratio == 2.0 and type(restored.ratio) is float


def test_a_missing_field_takes_its_default_and_one_without_a_default_is_named() -> None:
    data = encode(tree())
    del data["children"], data["renamedKey"]
    restored = decode(Tree, data)
    assert restored.children == () and restored.renamed == ""
    del data["count"]
    with pytest.raises(RecordError, match="has no 'count' field"):
        decode(Tree, data)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("count", "3", "count: should be an integer, not a string"),
        ("count", True, "count: should be an integer, not a boolean"),
        ("ratio", None, "ratio: should be a number, not null"),
        ("ok", 1, "ok: should be true or false, not an integer"),
        ("label", 5, "label: should be a string, not an integer"),
        ("colour", "green", "colour: should be one of red, blue, not 'green'"),
        ("colour", ["red"], "colour: should be one of red, blue, not \\['red'\\]"),
        ("leaves", {"name": "a"}, "leaves: should be a list, not an object"),
        ("pair", [1], "pair: should be a list of 2, not a list"),
        ("sizes", {"s": "1"}, "sizes.s: should be an integer, not a string"),
        ("parent", "p", "parent: should be an object, not a string"),
        # JSON's integers have no bound: one past a float's is invalid, not an OverflowError.
        ("ratio", 10**400, "ratio: is a number too large to read"),
        ("times", {"t": -(10**400)}, "times.t: is a number too large to read"),
        # Python's json reads NaN and Infinity; we never write them.
        ("ratio", float("nan"), "ratio: is not a finite number"),
        ("times", {"t": float("-inf")}, "times.t: is not a finite number"),
    ],
)
def test_a_wrong_type_names_the_field(key: str, value: object, message: str) -> None:
    data = encode(tree())
    data[key] = value
    with pytest.raises(RecordError, match=f"^{message}$"):
        decode(Tree, data)


def test_an_error_inside_a_nested_record_names_its_path() -> None:
    data = encode(tree())
    data["leaves"] = [{"name": "a"}, {"name": "b", "weight": "heavy"}]
    with pytest.raises(RecordError, match=r"^leaves\[1\]\.weight: should be a number"):
        decode(Tree, data)
    with pytest.raises(RecordError, match=r"^result: should be an object, not a list"):
        decode(Tree, [], where="result")


def test_unknown_fields_are_ignored_unless_rejected() -> None:
    data = {**encode(Leaf("a")), "newer": 1, "other": 2}
    assert decode(Leaf, data) == Leaf("a")
    with pytest.raises(RecordError, match="unknown field 'newer', 'other'"):
        decode(Leaf, data, unknown=REJECT)


def test_given_fields_are_taken_as_they_are_and_left_out_fields_are_not_encoded() -> None:
    data = encode(Leaf("a", 2.0), leave_out={"weight"})
    assert data == {"name": "a"}
    assert decode(Leaf, {"weight": "not read"}, given={"name": "b", "weight": 3.0}) == Leaf("b", 3)


def test_a_type_the_codec_cannot_store_fails_at_once() -> None:
    @dataclass(frozen=True)
    class Unstorable:
        either: int | str

    with pytest.raises(TypeError, match=r"X \| None"):
        decode(Unstorable, {"either": 1})
    with pytest.raises(TypeError, match="not a dataclass"):
        decode(int, {})


def test_a_field_left_out_at_its_default_must_have_one_to_be_read_or_written() -> None:
    @dataclass(frozen=True)
    class NoDefault:
        detail: int = field(metadata=stored_as("detailKey", omit_default=True))

    with pytest.raises(RecordError, match="detail has no default"):
        decode(NoDefault, {"detailKey": 1})
    with pytest.raises(RecordError, match="detail has no default"):
        encode(NoDefault(1))
