"""A regular expression compiled when it is first used, not when its module is imported.

Every doit run imports the whole task creator, so each module-level ``re.compile`` is paid even
by a run that never uses the pattern. Patterns with large character classes (JavaScript's
whitespace, XML's and YAML's character sets) took 3-7 ms each to compile: about 12 ms of a
0.21 s no-change run, spent on reports and coverage that such a run never writes."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any


class LazyPattern:
    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        # No lock: two threads compiling it at once both get an equal pattern (re caches it).
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], string: str) -> str:
        return self.compiled.sub(replacement, string)
