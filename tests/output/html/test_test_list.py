"""Every spec's tests on the HTML report: each test of each spec and mode with its verdict and
time, a section per spec that its matrix row links to by an id made from its place, and the
caps that keep a big suite's list small."""

from __future__ import annotations

import re

from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import Stage, Status
from astest_tasks.model.test_cases import TestCase
from astest_tasks.output.console import Shown
from astest_tasks.output.html import test_list
from astest_tasks.output.html.test_list import spec_tests
from astest_tasks.output.html.view import page_of
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.text_caps import MAX_NAME
from tests.conftest import make_spec_result

HOSTILE = 'assembly/__tests__/"><script>alert(1)</script> #x?y=1.spec.ts'


def case(name: str, verdict: Verdict, ms: float | None = None) -> TestCase:
    return TestCase(
        name,
        verdict,
        passed=int(verdict is Verdict.OK),
        failed=int(verdict is Verdict.FAIL),
        skipped=int(verdict is Verdict.SKIP),
        duration_ms=ms,
    )


def with_cases(*specs: tuple[Shown, list[TestCase]]) -> ReportInput:
    shown = [item for item, _ in specs]
    return ReportInput(
        shown=shown,
        whole_results=[item.result.to_json() for item in shown],
        spec_points=[cases for _, cases in specs],
    )


MIXED = [
    case("cart > adds", Verdict.OK, 1.25),
    case("cart > <b>removes</b>", Verdict.FAIL, 12.5),
    case("cart > later", Verdict.SKIP),
]


def test_every_test_of_every_spec_and_mode_is_listed_with_its_verdict_and_time() -> None:
    cart_wasi = make_spec_result("cart", Status.FAILED)
    cart_bindings = make_spec_result("cart", mode="bindings")
    other = make_spec_result("other", Status.SKIPPED)
    page = page_of(
        with_cases(
            (Shown(cart_wasi, False), MIXED),
            (Shown(other, True), [case("o > pending", Verdict.SKIP)]),
            (Shown(cart_bindings, False), [case("cart > adds", Verdict.OK, 2000.0)]),
        )
    )
    cart, skipped = page.spec_tests
    assert (cart.spec, cart.status, skipped.status) == (cart_wasi.spec, "failed", "skipped")
    wasi, bindings = cart.modes
    assert (wasi.mode, wasi.count, wasi.more, bindings.mode) == ("wasi", 3, 0, "bindings")
    assert [(t.name, t.status, t.duration) for t in wasi.tests] == [
        ("cart > adds", "passed", "1.2 ms"),
        ("cart > <b>removes</b>", "failed", "12 ms"),
        ("cart > later", "skipped", ""),
    ]
    assert [(t.status, t.duration) for t in bindings.tests] == [("passed", "2.00 s")]
    assert [row.anchor for row in page.rows] == [s.anchor for s in page.spec_tests]
    assert page.tests_left_out == 0


def test_a_section_id_is_made_from_its_place_never_from_the_spec_name() -> None:
    named = make_spec_result("evil", spec=HOSTILE)
    plain = make_spec_result("plain")
    page = page_of(with_cases((Shown(plain, False), MIXED), (Shown(named, False), MIXED)))
    assert [s.anchor for s in page.spec_tests] == ["tests-1", "tests-2"]
    assert page.rows[1].anchor == "tests-2" and page.spec_tests[1].spec == HOSTILE
    assert all(re.fullmatch(r"tests-[0-9]+", row.anchor) for row in page.rows)


def test_a_spec_that_did_not_compile_lists_no_tests_and_says_so() -> None:
    broken = make_spec_result("broken", Status.FAILED, stage=Stage.BUILD, error="asc failed")
    made_up = case("asc failed", Verdict.FAIL)  # the CI reports' one point for it
    ((section,), _) = spec_tests([Shown(broken, False)], [[made_up]])
    (mode,) = section.modes
    assert mode.build_failed and mode.tests == () and mode.count == 0
    assert section.status == "failed"


def test_a_big_suite_lists_a_bounded_number_of_tests_saying_how_many_it_left_out() -> None:
    per_spec = test_list.MAX_TESTS_PER_SPEC
    many = [case(f"table > row {n}", Verdict.OK, 0.5) for n in range(per_spec + 7)]
    specs = [
        (Shown(make_spec_result(f"s{n}", spec=f"assembly/__tests__/s{n}.spec.ts"), False), many)
        for n in range(test_list.MAX_TESTS // per_spec + 2)
    ]
    sections, left_out = spec_tests([s for s, _ in specs], [c for _, c in specs])
    listed = [len(mode.tests) for section in sections for mode in section.modes]
    assert listed[0] == per_spec and sum(listed) == test_list.MAX_TESTS
    assert listed[-1] == 0, "the page is full: later specs keep a section, listing none"
    assert [mode.more for mode in sections[0].modes] == [7]
    assert sections[-1].modes[0].more == sections[-1].modes[0].count == per_spec + 7
    assert left_out == len(specs) * len(many) - test_list.MAX_TESTS


def test_long_names_are_cut_as_everywhere() -> None:
    long = "n" * (MAX_NAME + 9)
    spec = make_spec_result("long", spec=f"assembly/__tests__/{long}.spec.ts")
    ((section,), _) = spec_tests([Shown(spec, False)], [[case(long, Verdict.OK)]])
    (line,) = section.modes[0].tests
    assert line.name == f"{'n' * MAX_NAME}… (9 more characters)"
    assert section.spec.endswith(f"… ({len(spec.spec) - MAX_NAME} more characters)")
