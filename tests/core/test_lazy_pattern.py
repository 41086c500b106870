"""Patterns compiled on first use: the same answers as ``re``, and nothing compiled at import."""

from __future__ import annotations

import re
import subprocess
import sys

from astest_tasks.core.lazy_pattern import LazyPattern


def test_it_answers_as_the_compiled_pattern_does_and_compiles_once() -> None:
    pattern = LazyPattern(r"(\w+)=(\d+)", re.ASCII)
    assert pattern._compiled is None
    text = "a=1 b=2 c=x"
    eager = re.compile(r"(\w+)=(\d+)", re.ASCII)
    assert pattern.match(text) is not None
    assert pattern.match(text).groups() == eager.match(text).groups()  # type: ignore[union-attr]
    assert pattern.match(text, 3) is None and eager.match(text, 3) is None
    assert pattern.match(text, 4, 6) is None and eager.match(text, 4, 6) is None
    assert pattern.fullmatch("a=1").groups() == ("a", "1")  # type: ignore[union-attr]
    assert pattern.fullmatch(text) is None and eager.fullmatch(text) is None
    assert pattern.fullmatch(text, 4, 7).span() == eager.fullmatch(text, 4, 7).span()  # type: ignore[union-attr]
    assert pattern.search(text, 2).span() == eager.search(text, 2).span()  # type: ignore[union-attr]
    assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert pattern.sub(r"\2", text) == eager.sub(r"\2", text)

    def upper_key(match: re.Match[str]) -> str:
        return match.group(1).upper()

    assert pattern.sub(upper_key, text) == eager.sub(upper_key, text) == "A B c=x"
    assert pattern.compiled is pattern.compiled


def test_importing_the_modules_with_slow_patterns_compiles_none_of_them() -> None:
    # A no-change doit imports them all; their character classes took milliseconds each.
    probe = (
        "import astest_tasks.core.guest_text as text, astest_tasks.coverage.points as points\n"
        "import astest_tasks.core.js_values as js, astest_tasks.output.terminal as term\n"
        "lazy = [v for m in (text, points, js, term) for v in vars(m).values()\n"
        "        if type(v).__name__ == 'LazyPattern']\n"
        "lazy += [p for _, *ps in points._KEYWORD_DECLARATIONS for p in ps]\n"
        "print(len(lazy), sum(p._compiled is not None for p in lazy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert int(out[0]) >= 20 and out[1] == "0", out
