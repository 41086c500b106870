"""Which as-test a project has installed, and which generation of its rules that version follows.

as-test changed its config keys, merge rules, counting, snapshot keys and runner scripts between
1.0.x and 1.8 (its CHANGELOG says which release changed what). The product follows the version
installed in the project, so every version-dependent rule asks this module, never a string
comparison of its own.
"""

from __future__ import annotations

import functools
from pathlib import Path

from astest_tasks.config.toolchain import AS_TEST, find_package
from astest_tasks.core.frozen import frozen

# The two ends our integration tests run every fixture against.
OLDEST_TESTED = "1.0.7"
NEWEST_TESTED = "1.8.0"


@functools.total_ordering
@frozen
class AsTestVersion:
    """A parsed as-test version; compares numerically (``1.10.0`` > ``1.8.0``)."""

    text: str
    parts: tuple[int, int, int]

    @classmethod
    def parse(cls, text: str) -> AsTestVersion:
        numbers: list[int] = []
        for piece in text.split("-")[0].split("+")[0].split("."):
            if not piece.isdigit():
                break
            numbers.append(int(piece))
        padded = (*numbers, 0, 0, 0)[:3]
        return cls(text=text, parts=(padded[0], padded[1], padded[2]))

    def at_least(self, text: str) -> bool:
        """True from release ``text`` on (``version.at_least("1.3.0")``: has ``features``)."""
        return self.parts >= AsTestVersion.parse(text).parts

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, AsTestVersion):
            return NotImplemented
        return self.parts < other.parts

    def __str__(self) -> str:
        return self.text


def untested_version_warning(version: AsTestVersion) -> str | None:
    """One warning for an as-test outside the range our tests cover, naming that range."""
    if AsTestVersion.parse(OLDEST_TESTED) <= version <= AsTestVersion.parse(NEWEST_TESTED):
        return None
    side = "older" if version < AsTestVersion.parse(OLDEST_TESTED) else "newer"
    return (
        f"as-test {version} is {side} than the versions astest-tasks is tested with "
        f"({OLDEST_TESTED} to {NEWEST_TESTED}); its rules may differ from what we follow; "
        f"fix: `npm install --save-dev as-test@{NEWEST_TESTED}` (or {OLDEST_TESTED})"
    )


def installed_version(project_root: Path) -> AsTestVersion | None:
    """The as-test version Node would load for this project, or None when it is not installed."""
    package = find_package(project_root, AS_TEST)
    return None if package is None else AsTestVersion.parse(package.version)
