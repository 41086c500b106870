"""The options table of docs/tasks-and-options.md is the one plan/options_docs.py renders from
the declarations: a new option brings its row with it, and an edited row is edited there."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.plan.options import OPTIONS
from astest_tasks.plan.options_docs import HEADER, options_table

PAGE = Path(__file__).resolve().parents[2] / "docs" / "tasks-and-options.md"


def table_on_the_page(text: str) -> str:
    lines = text.splitlines()
    start = lines.index(HEADER[0])
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join(lines[start:end]) + "\n"


def test_the_page_holds_the_table_the_declarations_make() -> None:
    made = options_table()
    assert table_on_the_page(PAGE.read_text(encoding="utf-8")) == made, (
        f"paste this table into {PAGE.name}:\n{made}"
    )


def test_every_option_has_one_row_naming_its_flag_and_variable() -> None:
    rows = options_table().splitlines()[len(HEADER) :]
    assert len(rows) == len(OPTIONS)
    for option, row in zip(OPTIONS, rows, strict=True):
        assert row.startswith(f"| `--{option.long}")
        assert option.env_var in row


def test_a_table_that_differs_is_found() -> None:
    page = PAGE.read_text(encoding="utf-8").replace("| `--timeout S` |", "| `--timeout SECONDS` |")
    assert table_on_the_page(page) != options_table()
