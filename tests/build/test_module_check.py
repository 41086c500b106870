"""A compiled module is whole, or the build says why not: the checks every build route and the
remote cache's hits go through (build/module_check.py)."""

from __future__ import annotations

from astest_tasks.build.module_check import module_problem

EMPTY_MODULE = b"\x00asm\x01\x00\x00\x00"
# One type section holding one function type, () -> (): 6 bytes after the header.
WITH_A_TYPE = EMPTY_MODULE + b"\x01\x04\x01\x60\x00\x00"


def test_a_whole_module_has_no_problem() -> None:
    assert module_problem(EMPTY_MODULE) is None
    assert module_problem(WITH_A_TYPE) is None


def test_an_empty_file_is_refused() -> None:
    assert module_problem(b"") == "it is empty (0 bytes)"


def test_bytes_without_the_magic_and_version_are_refused() -> None:
    problem = module_problem(b"\x00asm\x02\x00\x00\x00")
    assert problem is not None and "magic and version" in problem
    assert module_problem(b"\x00\x00\x00\x00") is not None


def test_a_module_cut_inside_a_section_is_refused() -> None:
    for cut in range(len(EMPTY_MODULE) + 1, len(WITH_A_TYPE)):
        problem = module_problem(WITH_A_TYPE[:cut])
        assert problem is not None and "not a valid WebAssembly module" in problem, cut
