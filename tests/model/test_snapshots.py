"""Snapshot files and the read-only store, checked against as-test 1.1.0's behaviour."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.model.snapshot_paths import MAX_SNAPSHOT_BYTES, input_snapshot_path
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.model.snapshots import (
    DEFAULT_PREAMBLE,
    MISSING_SNAPSHOT_EXPECTED,
    SnapshotAnswer,
    SnapshotStore,
    SnapshotVerdict,
    canonicalize_key,
    format_snapshot_file,
    parse_snapshot_text,
)

SPEC = "snapshot.spec.ts"
SPEC_PATH = "assembly/__tests__/snapshot.spec.ts"
SNAPSHOT_DIR = "./.as-test/snapshots"

# A file laid out exactly as as-test writes one: preamble, blank line, blank-separated entries.
SAMPLE = (
    "# my snapshots\n"
    "#\n"
    "// kept verbatim\n"
    "\n"
    "=== Snapshot support > string snapshot ===\n"
    '"snapshot-value-v1"\n'
    "\n"
    "=== Snapshot support > multi ===\n"
    "<<<\n"
    '"line one\n'
    "\n"
    'line three"\n'
    ">>>\n"
    "\n"
    "=== Snapshot support > named snapshot [named] ===\n"
    "42\n"
)


def write_snap(root: Path, relative: str, text: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


# --- paths and keys --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("a.spec.ts::Suite > test", "a.spec.ts::Suite > test"),
        ("a.spec.ts::Suite > test::0", "a.spec.ts::Suite > test"),
        ("a.spec.ts::Suite > test::2", "a.spec.ts::Suite > test #3"),
        ("a.spec.ts::Suite > test::1::mobile", "a.spec.ts::Suite > test [mobile]"),
        ("a.spec.ts::Suite > test::mobile", "a.spec.ts::Suite > test [mobile]"),
        ("a.spec.ts::Suite > test [named]", "a.spec.ts::Suite > test [named]"),
        ("a.spec.ts::3", "a.spec.ts::3"),  # the first "::" ends the prefix
        ("a.spec.ts::t::0::x", "a.spec.ts::t [x]"),
        ("a.spec.ts::t::99999999999999999999999", "a.spec.ts::t #1e+23"),  # a JS number
        # JavaScript's shortest digits, not the double's exact integer (1152921504606846976)
        ("a.spec.ts::t::1152921504606846975", "a.spec.ts::t #1152921504606847000"),
        # a lone surrogate in a test name, as Node writes it into the file
        ("a.spec.ts::lone \ud800 > t", "a.spec.ts::lone \ufffd > t"),
    ],
)
def test_canonicalize_key(key: str, canonical: str) -> None:
    assert canonicalize_key(key) == canonical


# --- the .snap format ------------------------------------------------------------------------


def test_parse_sample_entries_and_preamble() -> None:
    parsed = parse_snapshot_text(SAMPLE, SPEC)
    assert parsed.preamble == "# my snapshots\n#\n// kept verbatim"
    assert parsed.entries == {
        f"{SPEC}::Snapshot support > string snapshot": '"snapshot-value-v1"',
        f"{SPEC}::Snapshot support > multi": '"line one\n\nline three"',
        f"{SPEC}::Snapshot support > named snapshot [named]": "42",
    }
    assert list(parsed.entries)[1] == f"{SPEC}::Snapshot support > multi"  # file order
    assert not parsed.normalized


def test_parse_skips_comments_and_stray_lines_between_entries() -> None:
    text = "\r\n".join(
        ["=== a ===", "1", "# between", "", "  // indented", "stray", "=== b ===", "2", "# end"]
    )
    parsed = parse_snapshot_text(text, SPEC)
    assert parsed.entries == {f"{SPEC}::a": "1", f"{SPEC}::b": "2"}
    assert parsed.preamble == ""  # comments after the first entry are not preamble


def test_parse_legacy_keys_are_canonicalised_and_flagged() -> None:
    text = "=== X::0 ===\n1\n\n=== X::2 ===\n3\n\n=== X::1::big ===\n4\n\n=== X::small ===\n5\n"
    parsed = parse_snapshot_text(text, SPEC)
    assert parsed.entries == {
        f"{SPEC}::X": "1",
        f"{SPEC}::X #3": "3",
        f"{SPEC}::X [big]": "4",
        f"{SPEC}::X [small]": "5",
    }
    assert parsed.normalized


def test_parse_duplicate_key_keeps_first_position_and_last_value() -> None:
    parsed = parse_snapshot_text("=== a ===\n1\n\n=== b ===\n2\n\n=== a::0 ===\n3\n", SPEC)
    assert list(parsed.entries.items()) == [(f"{SPEC}::a", "3"), (f"{SPEC}::b", "2")]


def test_parse_unterminated_block_runs_to_end() -> None:
    parsed = parse_snapshot_text("=== a ===\n<<<\nx\ny", SPEC)
    assert parsed.entries == {f"{SPEC}::a": "x\ny"}


def test_format_round_trip_is_byte_identical() -> None:
    parsed = parse_snapshot_text(SAMPLE, SPEC)
    assert format_snapshot_file(parsed.entries, SPEC, parsed.preamble) == SAMPLE


def test_format_new_file_layout_matches_as_test() -> None:
    entries = {f"{SPEC}::first": '"one"', f"{SPEC}::second": '"two\nlines"'}
    text = format_snapshot_file(entries, SPEC, DEFAULT_PREAMBLE)
    assert text == (
        DEFAULT_PREAMBLE + '\n\n=== first ===\n"one"\n\n=== second ===\n<<<\n"two\nlines"\n>>>\n'
    )
    # Reading it back gives the same entries, and the default preamble survives unchanged.
    reparsed = parse_snapshot_text(text, SPEC)
    assert reparsed.entries == entries
    assert reparsed.preamble == DEFAULT_PREAMBLE


def test_default_preamble_is_as_tests() -> None:
    lines = DEFAULT_PREAMBLE.split("\n")
    assert len(lines) == 37
    assert lines[0] == "# as-test snapshot file"
    assert lines[-1] == "#   >>>"
    assert all(line.startswith("#") for line in lines)


def test_format_without_entries_or_preamble() -> None:
    assert format_snapshot_file({}, SPEC, DEFAULT_PREAMBLE) == ""
    assert format_snapshot_file({f"{SPEC}::k": "v"}, SPEC, "") == "=== k ===\nv\n"


def test_format_writes_legacy_and_duplicate_local_keys_once() -> None:
    entries = {f"{SPEC}::k::0": "first", f"{SPEC}::k": "second", "other.spec.ts::x": "3"}
    text = format_snapshot_file(entries, SPEC, "")
    # "other.spec.ts::x" keeps its foreign prefix, which canonicalisation turns into a name.
    assert text == "=== k ===\nfirst\n\n=== other.spec.ts [x] ===\n3\n"


# --- the store -------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    write_snap(tmp_path, ".as-test/snapshots/snapshot.spec.snap", SAMPLE)
    return SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)


def test_a_disabled_store_answers_every_assertion_ok_with_its_own_value(
    store: SnapshotStore,
) -> None:
    # as-test 1.8's --no-snapshot: mismatching and missing alike pass, nothing is counted.
    store.disabled = True
    key = f"{SPEC}::Snapshot support > string snapshot"
    answer = store.assert_snapshot(key, '"something else"')
    assert answer == SnapshotAnswer(True, '"something else"', SnapshotVerdict.DISABLED, key)
    assert store.assert_snapshot(f"{SPEC}::nowhere", "1").ok
    assert (store.matched, store.missing, store.mismatched, store.created) == (0, 0, 0, 0)
    # An asked-for entry is not obsolete, though it was not compared.
    assert not store.dirty and key not in store.obsolete_keys()


def test_store_reads_the_snap_file(store: SnapshotStore, tmp_path: Path) -> None:
    expected_path = tmp_path / ".as-test/snapshots/snapshot.spec.snap"
    assert store.source_path == expected_path
    assert store.file_path == expected_path
    assert not store.needs_rewrite
    assert store.render() == SAMPLE


def test_store_matched(store: SnapshotStore) -> None:
    answer = store.assert_snapshot(
        f"{SPEC}::Snapshot support > string snapshot", '"snapshot-value-v1"'
    )
    assert answer == SnapshotAnswer(
        True,
        '"snapshot-value-v1"',
        SnapshotVerdict.MATCHED,
        f"{SPEC}::Snapshot support > string snapshot",
    )
    assert SnapshotStore.reply_payload(answer) == b'1\n"snapshot-value-v1"'
    assert (store.matched, store.missing, store.mismatched) == (1, 0, 0)


def test_store_matches_multi_line_value_through_legacy_key(store: SnapshotStore) -> None:
    answer = store.assert_snapshot(
        f"{SPEC}::Snapshot support > multi::0", '"line one\n\nline three"'
    )
    assert answer.verdict is SnapshotVerdict.MATCHED
    assert answer.key == f"{SPEC}::Snapshot support > multi"


def test_store_mismatched_replies_stored_value(store: SnapshotStore) -> None:
    answer = store.assert_snapshot(f"{SPEC}::Snapshot support > named snapshot [named]", "43")
    assert (answer.ok, answer.verdict, answer.expected) == (False, SnapshotVerdict.MISMATCHED, "42")
    assert SnapshotStore.reply_payload(answer) == b"0\n42"
    assert (store.matched, store.missing, store.mismatched, store.failed) == (0, 0, 1, 1)


def test_store_comparison_is_exact(store: SnapshotStore) -> None:
    key = f"{SPEC}::Snapshot support > string snapshot"
    assert store.assert_snapshot(key, '"snapshot-value-v1" ').verdict is SnapshotVerdict.MISMATCHED


def test_store_missing(store: SnapshotStore) -> None:
    key = f"{SPEC}::Snapshot support > brand new"
    first = store.assert_snapshot(key, '"x"')
    store.assert_snapshot(key, '"x"')
    assert first == SnapshotAnswer(False, '"<missing snapshot>"', SnapshotVerdict.MISSING, key)
    assert MISSING_SNAPSHOT_EXPECTED == '"<missing snapshot>"'
    assert SnapshotStore.reply_payload(first) == b'0\n"<missing snapshot>"'
    assert store.missing == 2
    assert store.missing_keys == [key]  # as-test warns once per key


def test_reply_payload_is_utf8() -> None:
    answer = SnapshotAnswer(True, '"héllo ✓"', SnapshotVerdict.MATCHED, "k")
    assert SnapshotStore.reply_payload(answer) == '1\n"héllo ✓"'.encode()


def test_store_without_any_file_is_empty(tmp_path: Path) -> None:
    store = SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)
    assert store.source_path is None
    assert store.entries == {}
    assert store.assert_snapshot(f"{SPEC}::a", "1").verdict is SnapshotVerdict.MISSING
    store.entries[f"{SPEC}::a"] = "1"  # what a writing store will do on --create-snapshots
    assert store.render().startswith(DEFAULT_PREAMBLE + "\n\n=== a ===\n1\n")


def test_store_nested_spec_path(tmp_path: Path) -> None:
    write_snap(tmp_path, "snaps/nested/a.spec.snap", "=== k ===\n1\n")
    store = SnapshotStore.load(tmp_path, "assembly/__tests__/nested/a.spec.ts", "snaps")
    assert store.source_path == tmp_path / "snaps/nested/a.spec.snap"
    assert store.assert_snapshot("a.spec.ts::k", "1").ok


def test_store_legacy_snap_file_needs_rewrite(tmp_path: Path) -> None:
    write_snap(tmp_path, ".as-test/snapshots/snapshot.spec.snap", "=== t::1 ===\n2\n")
    store = SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)
    assert store.needs_rewrite
    assert store.assert_snapshot(f"{SPEC}::t #2", "2").ok


def test_store_legacy_json_fallback(tmp_path: Path) -> None:
    legacy = {f"{SPEC}::Suite > test::0": '"a"', f"{SPEC}::Suite > test::1": '"b"'}
    write_snap(tmp_path, ".as-test/snapshots/snapshot.spec.snap.json", json.dumps(legacy))
    store = SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)
    assert store.source_path == tmp_path / ".as-test/snapshots/snapshot.spec.snap.json"
    assert store.file_path == tmp_path / ".as-test/snapshots/snapshot.spec.snap"
    assert store.needs_rewrite  # as-test migrates it to .snap on its next write
    assert store.assert_snapshot(f"{SPEC}::Suite > test", '"a"').ok
    assert store.assert_snapshot(f"{SPEC}::Suite > test #2", '"b"').ok
    # A legacy file "existed", so its (empty) preamble is kept rather than the default one.
    assert store.render() == '=== Suite > test ===\n"a"\n\n=== Suite > test #2 ===\n"b"\n'


def test_snap_file_wins_over_legacy_json(tmp_path: Path) -> None:
    write_snap(tmp_path, "s/snapshot.spec.snap", "=== k ===\nnew\n")
    write_snap(tmp_path, "s/snapshot.spec.snap.json", json.dumps({f"{SPEC}::k": "old"}))
    store = SnapshotStore.load(tmp_path, SPEC_PATH, "s")
    assert store.assert_snapshot(f"{SPEC}::k", "new").ok


def test_disambiguated_legacy_json_only_for_duplicate_basenames(tmp_path: Path) -> None:
    write_snap(
        tmp_path, "s/a.spec.assembly____tests____x.snap.json", json.dumps({"a.spec.ts::k": "1"})
    )
    spec = "assembly/__tests__/x/a.spec.ts"
    assert SnapshotStore.load(tmp_path, spec, "s").source_path is None
    store = SnapshotStore.load(tmp_path, spec, "s", duplicate_spec_basenames={"a.spec.ts"})
    assert store.source_path == tmp_path / "s/a.spec.assembly____tests____x.snap.json"
    assert store.assert_snapshot("a.spec.ts::k", "1").ok


@pytest.mark.parametrize(
    ("relative", "content", "message_part"),
    [
        (".as-test/snapshots/snapshot.spec.snap", b"=== k ===\n\xff\xfe\n", "not valid UTF-8"),
        (".as-test/snapshots/snapshot.spec.snap.json", b"{not json", "not valid JSON"),
        (".as-test/snapshots/snapshot.spec.snap.json", b"[1, 2]", "not an object"),
        (".as-test/snapshots/snapshot.spec.snap.json", b'{"k": 1}', "non-string value"),
    ],
)
def test_corrupt_snapshot_file_is_a_user_error(
    tmp_path: Path, relative: str, content: bytes, message_part: str
) -> None:
    path = write_snap(tmp_path, relative, content)
    with pytest.raises(UserError) as caught:
        SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)
    message = str(caught.value)
    assert str(path) in message
    assert message_part in message
    assert "delete it" in message


def test_unreadable_snapshot_path_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / ".as-test/snapshots/snapshot.spec.snap").mkdir(parents=True)
    with pytest.raises(UserError, match=r"snapshot file .* is not a regular file"):
        SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)


SECRET = "AKIA-outside-secret"


def _planted(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose snapshot file is not yet there, and a secret file beside the project."""
    project = tmp_path / "project"
    snap = project / ".as-test/snapshots/snapshot.spec.snap"
    snap.parent.mkdir(parents=True)
    secret = tmp_path / "secret.snap"
    secret.write_text(format_snapshot_file({f"{SPEC}::t": f'"{SECRET}"'}, SPEC, ""))
    return project, snap


def test_a_snapshot_file_linked_out_of_the_project_is_refused_unread(tmp_path: Path) -> None:
    project, snap = _planted(tmp_path)
    snap.symlink_to(tmp_path / "secret.snap")
    with pytest.raises(UserError, match="symlink to a file outside the project") as refused:
        SnapshotStore.load(project, SPEC_PATH, SNAPSHOT_DIR)
    assert SECRET not in str(refused.value)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/stdin", "fifo"])
def test_a_snapshot_file_that_is_a_device_or_fifo_is_refused_without_blocking(
    tmp_path: Path, target: str
) -> None:
    """A FIFO with no writer would block a plain read for ever; /dev/zero would fill memory."""
    project, snap = _planted(tmp_path)
    if target == "fifo":
        os.mkfifo(snap)
    else:
        snap.symlink_to(target)
    with pytest.raises(UserError, match="snapshot file"):
        SnapshotStore.load(project, SPEC_PATH, SNAPSHOT_DIR)


def test_a_snapshot_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    project, snap = _planted(tmp_path)
    with snap.open("wb") as handle:  # sparse: no disk is spent on it
        handle.truncate(MAX_SNAPSHOT_BYTES + 1)
    with pytest.raises(UserError, match="larger than 64 MiB"):
        SnapshotStore.load(project, SPEC_PATH, SNAPSHOT_DIR)


def test_a_snapshot_file_linked_to_a_hidden_file_of_the_project_is_refused(
    tmp_path: Path,
) -> None:
    project, snap = _planted(tmp_path)
    (project / ".env").write_text(f"TOKEN={SECRET}\n")
    snap.symlink_to(project / ".env")
    with pytest.raises(UserError, match="hidden") as refused:
        SnapshotStore.load(project, SPEC_PATH, SNAPSHOT_DIR)
    assert SECRET not in str(refused.value)


def test_a_snapshot_file_linked_inside_the_project_is_read(tmp_path: Path) -> None:
    project, snap = _planted(tmp_path)
    shared = project / "shared/snapshot.spec.snap"
    shared.parent.mkdir()
    shared.write_text(format_snapshot_file({f"{SPEC}::t": '"kept"'}, SPEC, ""))
    snap.symlink_to(shared)
    store = SnapshotStore.load(project, SPEC_PATH, SNAPSHOT_DIR)
    assert store.entries == {f"{SPEC}::t": '"kept"'}


# --- updates -----------------------------------------------------------------------------------


def test_create_stores_missing_entries_and_keeps_mismatches_failing(
    store: SnapshotStore, tmp_path: Path
) -> None:
    store.update = SnapshotUpdate.CREATE
    new_key = f"{SPEC}::Snapshot support > brand new"
    created = store.assert_snapshot(new_key, '"fresh"')
    assert (created.ok, created.verdict, created.expected) == (
        True,
        SnapshotVerdict.CREATED,
        '"fresh"',
    )
    changed = store.assert_snapshot(f"{SPEC}::Snapshot support > named snapshot [named]", "43")
    assert changed.verdict is SnapshotVerdict.MISMATCHED
    assert (store.created, store.updated, store.mismatched) == (1, 0, 1)
    assert store.save_if_updated()
    reloaded = SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)
    assert reloaded.entries[new_key] == '"fresh"'
    assert reloaded.entries[f"{SPEC}::Snapshot support > named snapshot [named]"] == "42"
    assert list(reloaded.entries)[-1] == new_key, "new entries go after existing ones"
    assert reloaded.preamble == store.preamble


def test_overwrite_replaces_mismatching_entries(store: SnapshotStore, tmp_path: Path) -> None:
    store.update = SnapshotUpdate.OVERWRITE
    key = f"{SPEC}::Snapshot support > named snapshot [named]"
    answer = store.assert_snapshot(key, "43")
    assert (answer.ok, answer.verdict) == (True, SnapshotVerdict.UPDATED)
    assert store.save_if_updated()
    assert SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR).entries[key] == "43"


def test_replace_alone_rewrites_mismatches_and_still_fails_missing_entries(
    store: SnapshotStore, tmp_path: Path
) -> None:
    """as-test's --overwrite-snapshots without --create-snapshots (snapshot-store.ts)."""
    store.update = SnapshotUpdate.REPLACE
    key = f"{SPEC}::Snapshot support > named snapshot [named]"
    assert store.assert_snapshot(key, "43").verdict is SnapshotVerdict.UPDATED
    missing = store.assert_snapshot(f"{SPEC}::Snapshot support > brand new", '"x"')
    assert (missing.ok, missing.verdict) == (False, SnapshotVerdict.MISSING)
    assert store.save_if_updated()
    reloaded = SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR).entries
    assert reloaded[key] == "43" and f"{SPEC}::Snapshot support > brand new" not in reloaded


def test_a_plain_run_never_writes(store: SnapshotStore, tmp_path: Path) -> None:
    before = (tmp_path / ".as-test/snapshots/snapshot.spec.snap").read_bytes()
    store.assert_snapshot(f"{SPEC}::Snapshot support > brand new", '"x"')
    assert not store.save_if_updated()
    assert (tmp_path / ".as-test/snapshots/snapshot.spec.snap").read_bytes() == before


def test_an_update_run_that_changes_nothing_does_not_write(
    store: SnapshotStore, tmp_path: Path
) -> None:
    path = tmp_path / ".as-test/snapshots/snapshot.spec.snap"
    before = path.stat().st_mtime_ns
    store.update = SnapshotUpdate.OVERWRITE
    store.assert_snapshot(f"{SPEC}::Snapshot support > named snapshot [named]", "42")
    assert not store.save_if_updated()
    assert path.stat().st_mtime_ns == before


def test_entries_no_assertion_asked_for_are_obsolete(store: SnapshotStore) -> None:
    store.assert_snapshot(f"{SPEC}::Snapshot support > string snapshot", '"snapshot-value-v1"')
    obsolete = store.obsolete_keys()
    assert f"{SPEC}::Snapshot support > string snapshot" not in obsolete
    assert f"{SPEC}::Snapshot support > named snapshot [named]" in obsolete


def test_an_update_interrupted_while_writing_leaves_the_old_file_whole(
    store: SnapshotStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / ".as-test/snapshots/snapshot.spec.snap"
    before = path.read_bytes()
    store.update = SnapshotUpdate.OVERWRITE
    store.assert_snapshot(f"{SPEC}::Snapshot support > named snapshot [named]", "43")

    def interrupted(_src: object, _dst: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C (or SIGTERM's default) between write and rename

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.save_if_updated()
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["snapshot.spec.snap"]


# --- as-test 1.1.6+ key prefixes and 1.2.0+ locations (1.8.0's snapshot-store) ----------------

INPUT = ("assembly/__tests__/**/*.spec.ts",)
# A 1.0.7-era file: its keys carry no path, only the basename prefix as-test strips.
OLD_ERA = '=== vowels > counts ===\n3\n\n=== vowels > counts [labelled] ===\n"count=2"\n'


def load_18(root: Path, spec_path: str = SPEC_PATH) -> SnapshotStore:
    return SnapshotStore.load(
        root, spec_path, SNAPSHOT_DIR, input_patterns=INPUT, normalize_prefix=True
    )


def test_under_1_8_a_key_with_the_full_path_matches_an_older_basename_entry(
    tmp_path: Path,
) -> None:
    write_snap(tmp_path, ".as-test/snapshots/snapshot.spec.snap", OLD_ERA)
    store = load_18(tmp_path)
    # The 1.8 guest's ENTRY_FILE is the spec's full relative path.
    plain = store.assert_snapshot(f"{SPEC_PATH}::vowels > counts", "3")
    labelled = store.assert_snapshot(f"{SPEC_PATH}::vowels > counts::labelled", '"count=2"')
    assert (plain.verdict, labelled.verdict) == (SnapshotVerdict.MATCHED, SnapshotVerdict.MATCHED)
    assert store.obsolete_keys() == []
    assert store.missing_keys == []


def test_without_the_1_1_6_rule_a_full_path_key_is_missing(tmp_path: Path) -> None:
    write_snap(tmp_path, ".as-test/snapshots/snapshot.spec.snap", OLD_ERA)
    store = SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)
    assert store.assert_snapshot(f"{SPEC_PATH}::vowels > counts", "3").verdict is (
        SnapshotVerdict.MISSING
    )


@pytest.mark.parametrize(
    ("spec_path", "patterns", "expected"),
    [
        ("assembly/__tests__/a.spec.ts", ["./assembly/__tests__/*.spec.ts"], "a.spec.snap"),
        ("assembly/__tests__/left/a.spec.ts", INPUT, "left/a.spec.snap"),
        # No /__tests__/ marker: 1.1.x used the basename, 1.2.0+ the path below the glob base.
        ("tests/unit/a.spec.ts", ["tests/**/*.spec.ts"], "unit/a.spec.snap"),
        # The longest containing base wins; a "!" pattern's base is the project root.
        ("tests/unit/a.spec.ts", ["**/*.spec.ts", "tests/unit/*.spec.ts"], "a.spec.snap"),
        ("tests/unit/a.spec.ts", ["!x/*.spec.ts"], "tests/unit/a.spec.snap"),
        # A literal file pattern's base is its directory; a spec under none is its basename.
        ("lib/b.spec.ts", ["lib/b.spec.ts"], "b.spec.snap"),
        ("other/c.spec.ts", ["lib/*.spec.ts"], "c.spec.snap"),
    ],
)
def test_1_2_snapshot_files_mirror_the_path_below_the_input_base(
    tmp_path: Path, spec_path: str, patterns: list[str], expected: str
) -> None:
    assert input_snapshot_path(tmp_path, spec_path, "snaps", patterns) == f"snaps/{expected}"
    store = SnapshotStore.load(tmp_path, spec_path, "snaps", input_patterns=patterns)
    assert store.file_path == tmp_path / "snaps" / expected


def test_1_2_has_no_legacy_json_fallback(tmp_path: Path) -> None:
    write_snap(
        tmp_path, ".as-test/snapshots/snapshot.spec.snap.json", '{"snapshot.spec.ts::k": "1"}'
    )
    store = load_18(tmp_path)
    assert store.source_path is None
    assert store.entries == {}


def test_1_2_a_file_with_legacy_keys_is_read_canonically_and_due_for_a_rewrite(
    tmp_path: Path,
) -> None:
    write_snap(tmp_path, ".as-test/snapshots/snapshot.spec.snap", "=== s > t::0 ===\n1\n")
    store = load_18(tmp_path)
    assert store.needs_rewrite
    assert store.assert_snapshot(f"{SPEC_PATH}::s > t", "1").verdict is SnapshotVerdict.MATCHED


def test_1_8_create_writes_basename_keys_in_the_default_layout(tmp_path: Path) -> None:
    store = load_18(tmp_path, "assembly/__tests__/left/snapshot.spec.ts")
    store.update = SnapshotUpdate.CREATE
    store.assert_snapshot("assembly/__tests__/left/snapshot.spec.ts::vowels > counts", "3")
    assert store.save_if_updated()
    written = (tmp_path / ".as-test/snapshots/left/snapshot.spec.snap").read_text()
    assert written == DEFAULT_PREAMBLE + "\n\n=== vowels > counts ===\n3\n"


def test_a_snapshot_folder_linked_out_of_the_project_is_refused_before_any_write(
    tmp_path: Path,
) -> None:
    """No file yet: an update run would create it where the folder really is, outside."""
    project = tmp_path / "project"
    (project / ".as-test").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / ".as-test" / "snapshots").symlink_to(outside)
    with pytest.raises(UserError, match="leads outside the project"):
        SnapshotStore.load(project, SPEC_PATH, SNAPSHOT_DIR)
    assert list(outside.iterdir()) == []


def test_a_snapshot_folder_not_there_yet_is_fine(tmp_path: Path) -> None:
    store = SnapshotStore.load(tmp_path, SPEC_PATH, SNAPSHOT_DIR)
    assert store.source_path is None and store.entries == {}
