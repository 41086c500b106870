"""User-facing errors, kept apart from bugs.

A ``UserError`` is something the user can fix (a bad config, a missing package); the CLI and the
doit loader print it as one ``ERROR: ...`` line with no traceback. Anything else is a bug and keeps
its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem in the user's project that they can fix; its message says how."""


class ConfigError(UserError):
    """``as-test.config.json`` is unreadable or invalid.

    The message names the file, the field (as a ``$.path``) and the fix, on one line.
    """

    def __init__(self, config_path: str, field: str, problem: str, fix: str) -> None:
        self.config_path = config_path
        self.field = field
        self.problem = problem
        self.fix = fix
        where = f"{config_path}: {field}" if field else config_path
        super().__init__(f"{where}: {problem}; fix: {fix}")
