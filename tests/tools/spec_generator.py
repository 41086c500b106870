"""A seeded generator of random as-test specs, for agreement by construction.

Each spec is valid AssemblyScript for both as-test generations (1.0.7 and 1.8.0): nested
``describe``s, ``test``s and ``it``s, the ``x`` skips, ``todo`` and now and then ``only``,
passing and failing matchers of every kind both versions have (with ``.not``), ``log()``, odd
names (quotes, backslashes, non-ASCII, a lone surrogate), and now and then a crash
(``unreachable()``) or an ``abort``. The same seed always gives the same specs, so a
disagreement found in CI is replayed with ``ASTEST_SPEC_SEED=<seed>``.

Matchers: every one both versions' assembly/src/expectation.ts define, but two. Left out on
purpose: snapshots (a missing snapshot fails both tools the same way and says little else
without a snapshot file per tool), ``toThrow`` (without try-as both versions pass it as
"disabled"), fuzzers, and hooks.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

# (matcher source with {a}/{b} holes, a pair of values that passes, one that fails)
_NUMBER_MATCHERS = (
    ("expect<i32>({a}).toBe({b})", (3, 3), (3, 4)),
    ("expect<i32>({a}).not.toBe({b})", (3, 4), (5, 5)),
    ("expect<i32>({a}).toBeGreaterThan({b})", (7, 2), (2, 7)),
    ("expect<i32>({a}).toBeLessThan({b})", (2, 7), (7, 2)),
    ("expect<i32>({a}).toBeGreaterOrEqualTo({b})", (7, 7), (1, 7)),
    ("expect<i32>({a}).toBeLessThanOrEqualTo({b})", (7, 7), (8, 7)),
    ("expect<f64>({a}).toBeCloseTo({b})", (1.001, 1.0), (1.5, 1.0)),
)
_STRING_MATCHERS = (
    ('expect<string>("{a}").toBe("{b}")', ("as-test", "as-test"), ("as-test", "as_test")),
    ('expect<string>("{a}").toStartWith("{b}")', ("assembly", "asse"), ("assembly", "bly")),
    ('expect<string>("{a}").toEndWith("{b}")', ("assembly", "bly"), ("assembly", "asse")),
)
_OTHER_MATCHERS = (
    ("expect<bool>({a}).toBeTruthy()", ("true",), ("false",)),
    ("expect<bool>({a}).toBeFalsy()", ("false",), ("true",)),
    ("expect<i32[]>([1, 2, 3]).toHaveLength({a})", ("3",), ("4",)),
    ("expect<i32[]>([1, 2, 3]).toContain({a})", ("2",), ("9",)),
    ("expect<string | null>(null).toBeNull()", (), None),
    ("expect<i32[]>([1, 2, 3]).toContains({a})", ("3",), ("7",)),
    ("expect<i32[]>([1, 2, 3]).not.toContain({a})", ("9",), ("1",)),
    ("expect<i32[]>([1, 2, {a}]).toEqual([1, 2, {b}])", ("3", "3"), ("3", "4")),
    ("expect<i32[]>([1, {a}]).toStrictEqual([1, {b}])", ("5", "5"), ("5", "6")),
    ('expect<string>("{a}").toMatch("{b}")', ("assembly", "semb"), ("assembly", "xyz")),
)
# The type matchers resolve at compile time from the type argument: (type, value) pairs that
# pass and fail (as-test/assembly/src/expectation.ts, toBeString .. toBeFinite, both versions).
_TYPE_MATCHERS = (
    ("expect<{a}>({b}).toBeString()", ("string", '"s"'), ("i32", "1")),
    ("expect<{a}>({b}).toBeBoolean()", ("bool", "true"), ("i32", "1")),
    ("expect<{a}>({b}).toBeArray()", ("i32[]", "[1]"), ("i32", "1")),
    ("expect<{a}>({b}).toBeNumber()", ("f64", "1.5"), ("string", '"1"')),
    ("expect<{a}>({b}).toBeInteger()", ("i64", "2"), ("f32", "2.5")),
    ("expect<{a}>({b}).toBeFloat()", ("f32", "2.5"), ("u8", "2")),
    ("expect<{a}>({b}).toBeFinite()", ("f64", "1.0"), ("f64", "Infinity")),
    ("expect<{a}>({b}).not.toBeString()", ("u32", "7"), ("string", '"7"')),
)
_ODD_NAMES = (
    'quotes " inside',
    "a back\\\\slash",
    "naïve café",
    "emoji 🚀 launch",
    "lone \\ud800 surrogate",
    "tab\\there",
    "",
)

_FAMILIES = (_NUMBER_MATCHERS, _STRING_MATCHERS, _OTHER_MATCHERS, _TYPE_MATCHERS)


@dataclass
class SpecPlan:
    """What a generated spec holds, for the generator's own test."""

    features: set[str] = field(default_factory=set)
    matchers: set[str] = field(default_factory=set)


@dataclass
class _Writer:
    rng: random.Random
    plan: SpecPlan
    lines: list[str] = field(default_factory=list)
    names: int = 0

    def name(self, kind: str) -> str:
        self.names += 1
        if self.rng.random() < 0.12:
            self.plan.features.add("odd name")
            return f"{self.rng.choice(_ODD_NAMES)} {self.names}"
        return f"{kind} {self.names}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)


def generate_spec(seed: int, index: int) -> tuple[str, SpecPlan]:
    """Spec number ``index`` of the run seeded ``seed``: its source and what it holds."""
    rng = random.Random(f"{seed}:{index}")
    writer = _Writer(rng, SpecPlan())
    writer.emit(
        0,
        "import { describe, expect, it, log, only, test, todo, xdescribe, xit, "
        'xtest } from "as-test";',
    )
    writer.emit(0, "")
    for _ in range(rng.randint(1, 3)):
        _describe(writer, 0)
        writer.emit(0, "")
    return "\n".join(writer.lines) + "\n", writer.plan


def _describe(writer: _Writer, depth: int) -> None:
    rng = writer.rng
    skipped = rng.random() < 0.1
    keyword = "xdescribe" if skipped else "describe"
    if skipped:
        writer.plan.features.add("xdescribe")
    writer.emit(depth, f"{keyword}({_literal(writer.name('suite'))}, () => {{")
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.15 and depth < 2:
            _describe(writer, depth + 1)
        elif roll < 0.2:
            writer.plan.features.add("todo")
            writer.emit(depth + 1, f"todo({_literal(writer.name('todo'))});")
        else:
            _test(writer, depth + 1)
    writer.emit(depth, "});")


def _test(writer: _Writer, depth: int) -> None:
    rng = writer.rng
    roll = rng.random()
    keyword = "test" if roll < 0.5 else "it"
    if roll > 0.9:
        keyword = rng.choice(("xtest", "xit"))
        writer.plan.features.add("x-skip")
    elif roll > 0.88:
        keyword = "only"
        writer.plan.features.add("only")
    writer.emit(depth, f"{keyword}({_literal(writer.name(keyword))}, () => {{")
    for _ in range(rng.randint(0, 3)):
        _expectation(writer, depth + 1)
    if rng.random() < 0.15:
        writer.plan.features.add("log")
        writer.emit(depth + 1, f"log({_literal(writer.name('log line'))});")
    crash = rng.random()
    if crash < 0.02:
        writer.plan.features.add("crash")
        writer.emit(depth + 1, "unreachable();")
    elif crash < 0.04:
        writer.plan.features.add("abort")
        writer.emit(depth + 1, f"abort({_literal('aborted ' + str(writer.names))});")
    writer.emit(depth, "});")


def _expectation(writer: _Writer, depth: int) -> None:
    rng = writer.rng
    family = rng.choice(_FAMILIES)
    source, passing, failing = rng.choice(family)
    writer.plan.matchers.add(_matcher_name(source))
    fails = failing is not None and rng.random() < 0.3
    values = failing if fails and failing is not None else passing
    writer.plan.features.add("failing matcher" if fails else "passing matcher")
    holes = dict(zip(("a", "b"), values, strict=False))
    writer.emit(depth, source.format(**holes) + ";")


def _matcher_name(source: str) -> str:
    """``toBe`` of ``expect<i32>({a}).not.toBe({b})``: ``.not`` counts as its own matcher."""
    after = source.split(")", 1)[1]
    return after.split("(")[0].lstrip(".")


def all_matchers() -> set[str]:
    """Every matcher the generator can write (``not.toBe`` apart from ``toBe``), for its test."""
    return {_matcher_name(source) for family in _FAMILIES for source, _, _ in family}


def _literal(text: str) -> str:
    """An AssemblyScript string literal of ``text``, whose backslash escapes (``\\ud800``) stay
    escapes: the source is ASCII-safe JSON but for the characters we mean literally."""
    return '"' + text.replace('"', '\\"') + '"' if "\\" in text else json.dumps(text)
