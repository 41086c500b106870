"""coverage/cobertura.py: every document is valid against Cobertura's own DTD (coverage-04.dtd,
vendored beside this file, see cobertura/SOURCE.md) and says what the LCOV file says."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from astest_tasks.coverage.cobertura import cobertura_document
from astest_tasks.coverage.model import CoveragePoint, merge_points
from astest_tasks.coverage.points import SourceLines
from tests.coverage.test_files import CALC, calc_points

DTD_FILE = Path(__file__).parent / "cobertura" / "coverage-04.dtd"


def valid_cobertura(text: str) -> etree._Element:
    """The document parsed, after lxml's validator checked it against coverage-04.dtd (the
    DOCTYPE names the DTD's web address; the vendored copy is used, no network)."""
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    root = etree.fromstring(text.encode("utf-8"), parser)
    dtd = etree.DTD(str(DTD_FILE))
    assert dtd.validate(root), dtd.error_log.filter_from_errors()
    return root


def test_lines_methods_and_rates_follow_the_points(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.ts").write_text(CALC)
    summary = merge_points([calc_points()], lambda p: True)

    root = valid_cobertura(
        cobertura_document(summary, SourceLines(tmp_path), "/work/p", "astest-tasks 1.2", 17)
    )

    assert root.get("lines-valid") == "4" and root.get("lines-covered") == "3"
    assert float(root.get("line-rate", "")) == 3 / 4
    assert (root.get("branches-valid"), root.get("branch-rate")) == ("0", "1")
    assert (root.get("version"), root.get("timestamp")) == ("astest-tasks 1.2", "17")
    assert root.findtext("sources/source") == "/work/p"
    [package] = root.findall("packages/package")
    assert package.get("name") == "src"
    classes = {c.get("filename"): c for c in package.findall("classes/class")}
    assert sorted(classes) == ["src/calc.ts", "src/other.ts"]
    calc = classes["src/calc.ts"]
    # Line 2 holds a run and an unrun point: the line ran (as LCOV's DA:2,1).
    assert [(ln.get("number"), ln.get("hits")) for ln in calc.findall("lines/line")] == [
        ("1", "1"),
        ("2", "1"),
        ("7", "0"),
    ]
    assert float(calc.get("line-rate", "")) == 2 / 3
    methods = [
        (m.get("name"), m.get("line-rate"), [ln.get("number") for ln in m.findall("lines/line")])
        for m in calc.findall("methods/method")
    ]
    assert methods == [("add", "1.0", ["1"]), ("unused", "0.0", ["7"])]


def test_markup_and_odd_characters_in_paths_stay_valid_xml(tmp_path: Path) -> None:
    odd = 'src/<a&b>"q"\x01.ts'
    points = [CoveragePoint("h", odd, 3, 1, "Function", False)]
    summary = merge_points([points], lambda p: True)

    root = valid_cobertura(cobertura_document(summary, SourceLines(tmp_path), "/p\r", "v", 0))

    [klass] = root.iter("class")
    assert klass.get("filename") == 'src/<a&b>"q"\\x01.ts'  # XML cannot hold \x01: escaped
    assert root.findtext("sources/source") == "/p\r"  # a CR survives the round trip


def test_no_points_is_an_empty_valid_document(tmp_path: Path) -> None:
    summary = merge_points([], lambda p: True)
    root = valid_cobertura(cobertura_document(summary, SourceLines(tmp_path), "/p", "v", 0))
    assert root.get("line-rate") == "1" and root.findall("packages/package") == []
