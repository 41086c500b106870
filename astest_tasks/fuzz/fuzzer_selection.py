"""``--fuzzer NAME[,NAME...]``: report only some fuzzers of each campaign, as as-test 1.8's
``ast fuzz --fuzzer`` (``filterSelectedFuzzers`` in its ``cli/commands/fuzz-core.ts``).

As there, the campaign still runs every fuzzer of its file and only the result is cut down:
a selector matches a fuzzer whose name, slugified (lower case, runs of other characters as
``-``), is the selector slugified; the campaign passes when the selected fuzzers did, and its run
count is theirs. A selector that matches no fuzzer of a file fails that campaign with as-test's
message ("No fuzz targets matched ..."), since a typo would otherwise pass with nothing checked.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace

from astest_tasks.fuzz.results import FuzzResult


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-")


def select_fuzzers(result: FuzzResult, selectors: Sequence[str]) -> FuzzResult:
    asked = [(selector, slug(selector)) for selector in selectors if slug(selector)]
    wanted = [key for _, key in asked]
    if not wanted or not result.fuzzers:
        return result  # nothing asked, or a build failure or crash: shown whole
    names = {slug(fuzzer.name) for fuzzer in result.fuzzers}
    for selector, key in asked:
        if key not in names:
            return replace(
                result,
                passed=False,
                fuzzers=(),
                error=f'No fuzz targets matched "{selector}" in {posixpath.basename(result.file)}.'
                f" fix: name one of {', '.join(sorted(names))}",
            )
    kept = tuple(fuzzer for fuzzer in result.fuzzers if slug(fuzzer.name) in wanted)
    passed = not result.error and all(fuzzer.ok for fuzzer in kept)
    return replace(result, fuzzers=kept, passed=passed)
