"""The product's own version: part of every cache key, so upgrading astest-tasks re-runs specs."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("astest-tasks")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
