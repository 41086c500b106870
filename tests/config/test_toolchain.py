"""Finding npm packages the way Node does, and the as-test/assemblyscript version warning."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from astest_tasks.config.toolchain import (
    AS_TEST,
    ASSEMBLYSCRIPT,
    WASI_SHIM,
    Package,
    check_node_version,
    find_package,
    require_package,
    version_combination_warning,
)
from astest_tasks.core.errors import UserError


def install(node_modules: Path, name: str, manifest: object) -> Path:
    root = node_modules / name
    root.mkdir(parents=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (root / "package.json").write_text(text, encoding="utf-8")
    return root


def test_find_package_in_the_project_node_modules(tmp_path: Path) -> None:
    root = install(tmp_path / "node_modules", AS_TEST, {"name": AS_TEST, "version": "1.0.7"})
    package = find_package(tmp_path, AS_TEST)
    assert package == Package(name=AS_TEST, root=root, version="1.0.7")
    assert package.manifest == root / "package.json"


def test_find_package_walks_up_to_parent_node_modules(tmp_path: Path) -> None:
    root = install(tmp_path / "node_modules", WASI_SHIM, {"version": "0.1.0"})
    project = tmp_path / "packages" / "app"
    project.mkdir(parents=True)
    assert find_package(project, WASI_SHIM) == Package(WASI_SHIM, root, "0.1.0")


def test_find_package_prefers_the_nearest_node_modules(tmp_path: Path) -> None:
    install(tmp_path / "node_modules", ASSEMBLYSCRIPT, {"version": "0.28.17"})
    project = tmp_path / "app"
    near = install(project / "node_modules", ASSEMBLYSCRIPT, {"version": "0.28.14"})
    assert find_package(project, ASSEMBLYSCRIPT) == Package(ASSEMBLYSCRIPT, near, "0.28.14")


def test_find_package_skips_a_folder_without_a_manifest(tmp_path: Path) -> None:
    root = install(tmp_path / "node_modules", AS_TEST, {"version": "1.0.7"})
    project = tmp_path / "app"
    (project / "node_modules" / AS_TEST).mkdir(parents=True)  # a broken install, no package.json
    assert find_package(project, AS_TEST) == Package(AS_TEST, root, "1.0.7")


def test_find_package_returns_none_when_not_installed(tmp_path: Path) -> None:
    assert find_package(tmp_path, "surely-not-installed-anywhere-xyz") is None


def test_a_manifest_without_a_version_reads_as_unknown(tmp_path: Path) -> None:
    install(tmp_path / "node_modules", AS_TEST, {"name": AS_TEST})
    package = find_package(tmp_path, AS_TEST)
    assert package is not None
    assert package.version == "unknown"


def test_an_unreadable_manifest_is_a_user_error_suggesting_npm_ci(tmp_path: Path) -> None:
    install(tmp_path / "node_modules", AS_TEST, "{broken")
    with pytest.raises(UserError, match="npm ci"):
        find_package(tmp_path, AS_TEST)


def test_a_manifest_is_read_again_only_when_its_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each spec of a call asks for the packages it imports (plan/cache_keys.py)."""
    manifest = install(tmp_path / "node_modules", AS_TEST, {"version": "1.0.7"}) / "package.json"
    reads: list[Path] = []
    read_text = Path.read_text

    def counted(path: Path, *args: object, **kwargs: object) -> str:
        reads.append(path)
        return read_text(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", counted)
    versions = [find_package(tmp_path, AS_TEST).version for _ in range(3)]  # type: ignore[union-attr]
    assert (versions, reads) == (["1.0.7"] * 3, [manifest])
    manifest.write_text(json.dumps({"version": "1.0.8"}), encoding="utf-8")  # a reinstall
    later = manifest.stat().st_mtime_ns + 10**9  # as it would read once the clock moved on
    os.utime(manifest, ns=(later, later))
    assert find_package(tmp_path, AS_TEST) == Package(AS_TEST, manifest.parent, "1.0.8")
    assert reads == [manifest, manifest]


def test_a_manifest_broken_after_a_good_read_is_still_an_error(tmp_path: Path) -> None:
    manifest = install(tmp_path / "node_modules", AS_TEST, {"version": "1.0.7"}) / "package.json"
    assert find_package(tmp_path, AS_TEST) is not None
    manifest.write_text("{broken, and longer than before", encoding="utf-8")
    for _ in range(2):  # never kept: asked again, it fails again
        with pytest.raises(UserError, match="npm ci"):
            find_package(tmp_path, AS_TEST)


def test_require_package_returns_the_installed_package(tmp_path: Path) -> None:
    install(tmp_path / "node_modules", AS_TEST, {"version": "1.0.7"})
    assert require_package(tmp_path, AS_TEST).version == "1.0.7"


def test_require_package_error_names_the_pinned_install_command(tmp_path: Path) -> None:
    project = tmp_path / "isolated-project-without-node-modules"
    project.mkdir()
    if find_package(project, AS_TEST) is not None:
        pytest.skip("an as-test install above tmp_path would be found")
    with pytest.raises(UserError) as raised:
        require_package(project, AS_TEST)
    message = str(raised.value)
    assert "npm install --save-dev as-test@1.0.7" in message
    assert str(project) in message


def test_require_package_without_a_pin_names_the_bare_package(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"`npm install --save-dev no-such-pkg-xyz` in"):
        require_package(tmp_path, "no-such-pkg-xyz")


def test_as_test_1_0_7_with_assemblyscript_0_28_17_warns_and_names_the_fix() -> None:
    warning = version_combination_warning("1.0.7", "0.28.17")
    assert warning is not None
    assert "as-test 1.0.7 with assemblyscript 0.28.17" in warning
    assert "no source location" in warning
    assert "npm install --save-dev assemblyscript@0.28.14" in warning


@pytest.mark.parametrize(
    ("as_test", "asc"),
    [("1.0.7", "0.28.14"), ("1.1.0", "0.28.17"), ("1.0.7", "0.28.16"), ("2.0.0", "0.29.0")],
)
def test_other_version_combinations_do_not_warn(as_test: str, asc: str) -> None:
    assert version_combination_warning(as_test, asc) is None


@pytest.mark.parametrize("asc", ["0.29.0", "0.28.18", "0.28.17-dev.1", "1.0.0"])
def test_later_assemblyscript_versions_also_warn_for_as_test_1_0(asc: str) -> None:
    assert version_combination_warning("1.0.3", asc) is not None


def fake_node(folder: Path, version: str) -> str:
    """A ``node`` that answers ``--version`` and notes in ``asked`` that it was asked."""
    node = folder / "node"
    node.write_text(f'#!/bin/sh\necho "$1" >> {folder / "asked"}\necho {version}\n')
    node.chmod(0o755)
    return str(node)


def test_a_node_too_old_for_the_compiler_is_refused_with_its_version(tmp_path: Path) -> None:
    node = fake_node(tmp_path, "v16.20.0")
    with pytest.raises(UserError, match=r"Node\.js v16\.20\.0 at .* is too old .* 18 or newer"):
        check_node_version(node)


@pytest.mark.parametrize("version", ["v18.0.0", "v20.20.2", "v24.1.0", "something else"])
def test_a_recent_or_unusual_node_passes(tmp_path: Path, version: str) -> None:
    check_node_version(fake_node(tmp_path, version))  # raises when it refuses
    # It was accepted on its answer, not waved through unasked.
    assert (tmp_path / "asked").read_text() == "--version\n"
