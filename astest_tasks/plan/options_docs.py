"""The table of options in docs/tasks-and-options.md, made from the options' declarations (each
stage's record of them, in ``options.py``'s ``GROUPS`` order).

The page holds the table as this renders it; tests/plan/test_options_docs.py fails when they
differ, and prints the table to paste. So an option is declared in one place, its row included.
"""

from __future__ import annotations

from astest_tasks.plan.options import OPTIONS

HEADER = (
    "| option | environment | default | meaning |",
    "|---|---|---|---|",
)


def options_table() -> str:
    """One row per option, in the stages' order (``doit help astest``'s)."""
    rows = [
        f"| {doc.flag} | {doc.env} | {doc.default} | {doc.meaning} |"
        for doc in (option.doc for option in OPTIONS)
    ]
    return "\n".join((*HEADER, *rows)) + "\n"
