"""The table of config keys in docs/configuration.md, made from the declarations of ``keys.py``.

The page holds the table as this renders it; tests/config/test_keys_docs.py fails when they
differ, and prints the table to paste. Modes-only keys come last, under ``modes``.
"""

from __future__ import annotations

import json

from astest_tasks.config.keys import DECLARATIONS, MODE_ONLY, Declaration, Doc, Key

HEADER = (
    "| key | default | mode | what astest-tasks does with it |",
    "|---|---|---|---|",
)


def keys_table() -> str:
    """The table, one row per declaration with a ``Doc``, in the declared order."""
    rows = [_row(entry, doc) for entry in DECLARATIONS if (doc := _doc(entry)) is not None]
    return "\n".join((*HEADER, *rows)) + "\n"


def _doc(entry: Declaration) -> Doc | None:
    return entry.doc


def _row(entry: Declaration, doc: Doc) -> str:
    name = entry.at.replace(MODE_ONLY, "modes.<name>.")
    return f"| `{name}` | {_default(entry, doc)} | {doc.mode} | {doc.text} |".replace("|  |", "| |")


def _default(entry: Declaration, doc: Doc) -> str:
    if doc.default is not None:
        return doc.default
    if not isinstance(entry, Key):
        return ""
    value = entry.default
    shown = list(value) if isinstance(value, tuple) else value
    return f"`{json.dumps(shown)}`"
