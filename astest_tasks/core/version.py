"""The product's own version: part of every cache key, so upgrading astest-tasks re-runs specs.

It is written here, once, and nowhere else: the wheel's metadata reads it from this line
(``[tool.setuptools.dynamic]`` in pyproject.toml), and ``tests/test_packaging.py`` holds it to
CHANGELOG.md's newest release, or the next development version while ``[Unreleased]`` has entries.
A literal, not a lookup in the installed metadata, so importing the package reads no file for it
and a checkout without tags (or without git) reports the same version as its wheel.
"""

from __future__ import annotations

__version__ = "0.2.0.dev0"
