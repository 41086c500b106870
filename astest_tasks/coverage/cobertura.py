"""Coverage as Cobertura XML (``cobertura.xml``), the format GitLab's merge-request coverage view,
Codecov, Azure Pipelines and Jenkins read, written beside LCOV from the same merged points.

It follows Cobertura's ``coverage-04.dtd`` (tests/coverage validates every document against it)
and says no more than the LCOV file does (coverage/files.py):

- a ``<line>`` per source line that holds a point, ``hits`` 1 when any point on it ran, else 0;
- a ``<method>`` per function the points mark (``function_marks``), with its declaring line;
- no branches: a point does not say which branch of a condition it belongs to, so
  ``branch-rate`` is 1.0 of 0 branches, as gcovr writes it for a file without branch data.

A file is a ``<class>``, its folder a ``<package>`` (``/`` as ``.``), as gcovr lays C files out.
Rates are per line, as every Cobertura consumer computes them, so they can differ from the
summary's per-point percentages. ``filename`` is relative to the one ``<source>``, the project
root, which is where GitLab joins them to find the file in the repository.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import TYPE_CHECKING

from astest_tasks.core.guest_text import xml_text
from astest_tasks.coverage.files import function_marks, line_hits
from astest_tasks.coverage.model import CoverageSummary, FileCoverage
from astest_tasks.coverage.points import SourceLines

if TYPE_CHECKING:
    import xml.etree.ElementTree as ElementTree

COBERTURA_FILE = "cobertura.xml"
DOCTYPE = "<!DOCTYPE coverage SYSTEM 'http://cobertura.sourceforge.net/xml/coverage-04.dtd'>"


def cobertura_document(
    summary: CoverageSummary,
    sources: SourceLines,
    source_root: str,
    version: str,
    timestamp: int,
    *,
    typed_points: bool = False,  # label points as as-test 1.1.3+ does (points.py)
) -> str:
    """The whole document; ``source_root`` is the project root's absolute path, ``timestamp``
    seconds since the epoch (coverage.py and gcovr write the run's time there)."""
    import xml.etree.ElementTree as ElementTree  # only when written: a no-change run loads no XML

    files = [(file, line_hits(file)) for file in summary.files]
    valid, covered = _line_counts([hits for _, hits in files])
    root = ElementTree.Element("coverage")
    root.attrib.update(
        {
            "line-rate": _rate(covered, valid),
            "branch-rate": _rate(0, 0),
            "lines-covered": str(covered),
            "lines-valid": str(valid),
            "branches-covered": "0",
            "branches-valid": "0",
            "complexity": "0",
            "version": xml_text(version),
            "timestamp": str(timestamp),
        }
    )
    ElementTree.SubElement(ElementTree.SubElement(root, "sources"), "source").text = xml_text(
        source_root
    )
    packages = ElementTree.SubElement(root, "packages")
    by_folder: dict[str, list[tuple[FileCoverage, dict[int, bool]]]] = {}
    for file, hits in files:
        by_folder.setdefault(posixpath.dirname(file.file), []).append((file, hits))
    for folder in sorted(by_folder):
        members = by_folder[folder]
        package_valid, package_covered = _line_counts([hits for _, hits in members])
        package = ElementTree.SubElement(packages, "package")
        package.attrib.update(
            {
                "name": xml_text(folder.replace("/", ".")),
                "line-rate": _rate(package_covered, package_valid),
                "branch-rate": _rate(0, 0),
                "complexity": "0",
            }
        )
        classes = ElementTree.SubElement(package, "classes")
        for file, hits in members:
            classes.append(_class(file, hits, sources, typed_points))
    ElementTree.indent(root)
    body = ElementTree.tostring(root, encoding="unicode")
    # A raw CR in text reads back as LF; ElementTree escapes it in attributes only.
    return f'<?xml version="1.0" ?>\n{DOCTYPE}\n{body}\n'.replace("\r", "&#13;")


def _class(
    file: FileCoverage, hits: dict[int, bool], sources: SourceLines, typed_points: bool
) -> ElementTree.Element:
    import xml.etree.ElementTree as ElementTree  # only when written: a no-change run loads no XML

    valid, covered = _line_counts([hits])
    element = ElementTree.Element("class")
    element.attrib.update(
        {
            "name": xml_text(posixpath.basename(file.file)),
            "filename": xml_text(file.file),
            "line-rate": _rate(covered, valid),
            "branch-rate": _rate(0, 0),
            "complexity": "0",
        }
    )
    methods = ElementTree.SubElement(element, "methods")
    for line, name, executed in function_marks(file, sources, typed_points):
        method = ElementTree.SubElement(methods, "method")
        method.attrib.update(
            {
                "name": xml_text(name),
                "signature": "",  # AssemblyScript's signatures are not in the points
                "line-rate": _rate(int(executed), 1),
                "branch-rate": _rate(0, 0),
                "complexity": "0",
            }
        )
        method_lines = ElementTree.SubElement(method, "lines")
        method_lines.append(_line(line, executed))
    lines = ElementTree.SubElement(element, "lines")
    for line, hit in hits.items():
        lines.append(_line(line, hit))
    return element


def _line(number: int, hit: bool) -> ElementTree.Element:
    import xml.etree.ElementTree as ElementTree  # only when written: a no-change run loads no XML

    return ElementTree.Element("line", number=str(number), hits=str(int(hit)), branch="false")


def _line_counts(groups: Sequence[dict[int, bool]]) -> tuple[int, int]:
    """(lines with a point, lines where one ran) over the files' line hits."""
    valid = sum(len(hits) for hits in groups)
    covered = sum(1 for hits in groups for hit in hits.values() if hit)
    return valid, covered


def _rate(covered: int, valid: int) -> str:
    # Cobertura's rates run from 0 to 1; nothing to cover is fully covered (gcovr, coverage.py).
    return repr(covered / valid) if valid else "1"
