"""Layering, driven by the declarations in ``keys.py`` alone.

A ``Layer`` is what one config object (the base config or one mode) sets; ``Values`` are a
complete set: the base config's layer over the defaults, or a mode's layer merged onto the base
config's values with each key's rule. ``folders`` then gives each mode its own directories.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.config_reader import DISABLED, ConfigObject
from astest_tasks.config.keys import KEYS, READ_ORDER, Folder, Key

T = TypeVar("T")


class Layer:
    """What one config object sets: a key it does not set is absent."""

    def __init__(self) -> None:
        self._set: dict[Key[Any], object] = {}

    def get(self, key: Key[T]) -> T | None:
        return cast("T | None", self._set.get(key))

    def set(self, key: Key[T], value: T | None) -> None:
        if value is not None:
            self._set[key] = value


class Values:
    """A value for every key."""

    def __init__(self, values: Mapping[Key[Any], object]) -> None:
        self._values = dict(values)

    def __getitem__(self, key: Key[T]) -> T:
        return cast(T, self._values[key])


DEFAULTS = Values({key: key.default for key in KEYS})


def read_layer(obj: ConfigObject) -> Layer:
    """Check every part of a config object, in the declared order, and keep what it sets."""
    layer = Layer()
    for entry in READ_ORDER:
        if isinstance(entry, Key):
            layer.set(entry, entry.read(obj, entry))
        else:
            entry.run(obj, entry)
    return layer


def resolve_base(layer: Layer) -> Values:
    """The base config replaces the defaults outright, key by key (coverage included)."""
    return Values({key: _own_or(layer.get(key), DEFAULTS[key]) for key in KEYS})


def merge_mode(base: Values, layer: Layer, rules: AsTestRules) -> Values:
    """A named mode's values: what it sets over the base config's, as the installed as-test does
    (each key's ``mode_merge``)."""
    merged: dict[Key[Any], object] = {}
    for key in KEYS:
        own = layer.get(key)
        merged[key] = base[key] if own is None else key.mode_merge(base[key], own, rules)
    return Values(merged)


def folders(values: Values, name: str, base: Values, own: Layer | None) -> Values:
    """``values`` with each directory key placed for mode ``name`` (see ``keys.Folder``).

    ``own`` is what the mode sets itself (None for the base config, which is mode "default").
    """
    placed = {key: values[key] for key in KEYS}
    for key in KEYS:
        if key.folder is None:
            continue
        own_path = own.get(key) if own is not None else None
        placed[key] = own_path or _place(key.folder, base[key], name, own is None)
    return Values(placed)


def _place(folder: Folder, path: str, name: str, is_base: bool) -> str:
    if folder.switchable and path == DISABLED:
        return path
    if folder.shared and not is_base:
        return path
    return posixpath.join(path, name)


def _own_or(own: T | None, inherited: T) -> T:
    return inherited if own is None else own
