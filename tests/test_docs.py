"""The docs/ site builds with ``mkdocs build --strict``, and the README's links into it resolve.

mkdocs.yml sets ``validation`` so that a broken link, a missing anchor or a page left out of the
nav is a warning, which ``--strict`` turns into a failed build: this test is what makes CI catch
them. The README is the front page on the forge, outside the site, so its links are checked here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from mkdocs.config import load_config

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"

# [text](docs/page.md) or [text](docs/page.md#anchor); links elsewhere (ARCHITECTURE.md, which
# the lead writes, or web addresses) are not the site's business.
_README_DOCS_LINK = re.compile(r"\]\((docs/[^)#\s]+)(?:#[^)\s]*)?\)")


def nav_pages() -> list[str]:
    """Every page the nav names, in order, nested sections included (paths below docs/)."""
    config = load_config(str(REPO / "mkdocs.yml"))
    pages: list[str] = []
    pending: list[object] = [config["nav"]]
    while pending:
        item = pending.pop(0)
        if isinstance(item, str):
            pages.append(item)
        elif isinstance(item, list):
            pending[:0] = item
        elif isinstance(item, dict):
            pending[:0] = list(item.values())
    return pages


def built_page(site: Path, page: str) -> Path:
    """Where mkdocs writes a page with its default directory URLs (``a.md`` -> ``a/index.html``)."""
    stem = page.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return site / stem.removesuffix("index") / "index.html"
    return site / stem / "index.html"


def test_the_site_builds_strictly_with_one_page_per_nav_entry(tmp_path: Path) -> None:
    site = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(REPO / "mkdocs.yml"),
            "--site-dir",
            str(site),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        # Material prints a banner about MkDocs 2.0 on every build; it is not a warning of ours.
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (site / "index.html").is_file()
    pages = nav_pages()
    missing = [page for page in pages if not built_page(site, page).is_file()]
    assert not missing, f"nav entries with no built page: {missing}"


def test_every_docs_page_is_in_the_nav_once() -> None:
    pages = nav_pages()
    on_disk = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    assert sorted(pages) == on_disk, "each docs/*.md page belongs in mkdocs.yml's nav, once"


def test_the_readme_links_into_docs_name_pages_of_the_site() -> None:
    links = _README_DOCS_LINK.findall(README.read_text(encoding="utf-8"))
    assert len(links) >= 10, f"the README's links list should point into docs/, found {links}"
    missing = [link for link in links if not (REPO / link).is_file()]
    assert not missing, f"README.md links to docs pages that do not exist: {missing}"
    pages = set(nav_pages())
    outside = [link for link in links if link.removeprefix("docs/") not in pages]
    assert not outside, f"README.md links to docs pages missing from the nav: {outside}"


def test_the_readme_lists_every_user_page_of_the_site() -> None:
    # The README's list is where a reader on the forge finds the docs; a page added to the site
    # but not to that list stays unfound (issue 41 found three so). The design pages are
    # reached through ARCHITECTURE.md, and index.md is the site's own front page.
    linked = set(_README_DOCS_LINK.findall(README.read_text(encoding="utf-8")))
    user_pages = {f"docs/{page}" for page in nav_pages() if page != "index.md" and "/" not in page}
    unlisted = sorted(user_pages - linked)
    assert not unlisted, f"README.md's documentation list lacks these pages: {unlisted}"


def test_the_readme_test_command_is_the_one_ci_runs() -> None:
    # .ci/run must call exactly the README's second command (issue 20 keeps it byte-identical).
    command = (REPO / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()[-1]
    readme = README.read_text(encoding="utf-8")
    assert command.startswith("python3 -m venv .venv && "), command
    assert f"\n{command}\n```" in readme, f"README.md's test command is not .ci/run's: {command}"


# "docs/design/host-contract.md §4.8" in a comment or docstring: the page and its section exist.
_CITATION = re.compile(r"docs/design/([\w-]+\.md)(?:\s+§(\d+(?:\.\d+)?))?")
# Whatever could cite a design page: the package and the tests (not the installed toolchains).
_TOOLCHAINS = REPO / "tests" / "toolchains"


def code_files() -> list[Path]:
    found = [*(REPO / "astest_tasks").rglob("*.py"), *(REPO / "tests").rglob("*.py")]
    return sorted(path for path in found if not path.is_relative_to(_TOOLCHAINS))


def design_citations() -> list[tuple[str, str, str]]:
    found = []
    for path in code_files():
        text = " ".join(path.read_text(encoding="utf-8").split())  # a citation may wrap
        for match in _CITATION.finditer(text):
            found.append((str(path.relative_to(REPO)), match.group(1), match.group(2) or ""))
    return found


def test_every_design_citation_in_the_code_opens_a_section_that_exists() -> None:
    citations = design_citations()
    assert len(citations) >= 20, "the code cites the design pages throughout"
    broken = []
    for where, page, section in citations:
        target = REPO / "docs" / "design" / page
        headings = target.read_text(encoding="utf-8") if target.is_file() else ""
        if not target.is_file() or (
            section and not re.search(rf"^#+ {re.escape(section)}\.? ", headings, re.M)
        ):
            broken.append(f"{where}: docs/design/{page} §{section}")
    assert not broken, f"citations with no such page or section: {broken}"


def test_no_code_cites_the_design_notes_outside_the_repository() -> None:
    this_file = Path(__file__).resolve()
    outside = [
        str(path.relative_to(REPO))
        for path in code_files()
        if path != this_file
        and re.search(r"AS-TEST-HOST|DESIGN\.md", path.read_text(encoding="utf-8"))
    ]
    assert not outside, f"cite docs/design/ instead: {outside}"


def test_every_section_sign_in_the_code_names_its_page() -> None:
    # A bare "(§4.8)" leaves the reader to guess which document it means.
    this_file = Path(__file__).resolve()
    bare = []
    for path in code_files():
        if path == this_file:
            continue
        text = " ".join(path.read_text(encoding="utf-8").split())
        cited = sum(1 for match in _CITATION.finditer(text) if match.group(2))
        if text.count("§") != cited:
            bare.append(str(path.relative_to(REPO)))
    assert not bare, f"a § without its docs/design/ page before it: {bare}"
