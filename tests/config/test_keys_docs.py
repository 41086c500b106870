"""The table of config keys in the docs is the one the declarations make."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.config import keys
from astest_tasks.config.keys_docs import HEADER, keys_table

PAGE = Path(__file__).parents[2] / "docs" / "configuration.md"


def _table_on_page() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(HEADER[0])
    return text[start : text.index("\n\n", start)] + "\n"


def test_the_page_holds_the_table_the_declarations_make() -> None:
    expected = keys_table()
    assert _table_on_page() == expected, (
        "docs/configuration.md's table of keys differs from astest_tasks/config/keys.py; "
        f"replace it with:\n{expected}"
    )


def test_every_documented_declaration_has_one_row() -> None:
    rows = keys_table().splitlines()[len(HEADER) :]
    documented = [entry for entry in keys.DECLARATIONS if entry.doc is not None]

    assert len(rows) == len(documented)
    assert rows[-1].startswith("| `modes.<name>.default` |")
