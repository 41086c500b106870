"""One finding of ``astest doctor``: how serious, where, what was found, and the fix.

Down here because every stage that knows a part of the setup checks its own part (a runtime
checks its runner or browser, run/runtime.py) and the doctor only gathers and prints them.
"""

from __future__ import annotations

from enum import StrEnum

from astest_tasks.core.frozen import frozen


class Level(StrEnum):
    OK = "OK"
    WARN = "WARN"
    ERROR = "ERROR"


@frozen
class Check:
    level: Level
    scope: str  # "config", "node", "npm", "doit" or "mode <name>"
    detail: str
    fix: str = ""
