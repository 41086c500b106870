"""The remote cache of a process, and what a doit call's processes tell each other through the
state folder: counts, results served, the cache being off, warnings already printed."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path

import pytest

from astest_tasks.core.records import decode, encode
from astest_tasks.remote.counters import RemoteCounts
from astest_tasks.remote.entries import Entry, encode_entry
from astest_tasks.remote.remote_use import RemoteUse
from astest_tasks.remote.session import ProcessCounts, RemoteSession, read_call_counts
from astest_tasks.remote.settings import parse_settings
from tests.fifo_guard import fifo_symlink, without_waiting
from tests.nginx_cache import CacheServer, free_port


def use_of(url: str, state: Path, call: str = "call-1") -> RemoteUse:
    return RemoteUse(settings=parse_settings(url), state_dir=str(state), session=call)


def _look_up_in_child(use: RemoteUse) -> None:
    # A forked doit worker's scheduler has a session of its own (Scheduler.forked).
    child = RemoteSession()
    cache = child.client(use)
    assert cache is not None
    assert cache.fetch("0" * 64, {}, lambda _: True) is None
    child.note_served(use, "wasi", "from-the-child")
    child.publish(use, wait_for_uploads=True)


def test_each_process_has_its_own_client_and_its_counts_reach_the_summary(
    cache_server: CacheServer, tmp_path: Path
) -> None:
    session = RemoteSession()
    use = use_of(cache_server.url(), tmp_path / "state")
    parent = session.client(use)
    assert parent is not None and session.client(use) is parent
    assert parent.fetch("1" * 64, {}, lambda _: True) is None
    parent.store("2" * 64, {"blob": b"bytes"}, {})
    session.note_served(use, "wasi", "here")
    child = multiprocessing.get_context("fork").Process(target=_look_up_in_child, args=(use,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    session.publish(use, wait_for_uploads=True)
    stale = tmp_path / "state" / "call-0-123.json"
    stale.write_text("{}")  # an earlier call's: removed by the summary's read
    counts = read_call_counts(tmp_path / "state", "call-1")
    entry = encode_entry("2" * 64, Entry({"blob": hashlib.sha256(b"bytes").hexdigest()}, {}), None)
    sent = len(b"bytes") + len(entry)
    assert counts.counts == RemoteCounts(hits=0, misses=2, uploaded=1, uploaded_bytes=sent)
    assert counts.served == {("wasi", "here"), ("wasi", "from-the-child")}
    assert not stale.exists()


def test_a_failure_in_one_process_turns_the_cache_off_for_the_call_with_one_warning(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    session = RemoteSession()
    use = use_of(f"http://127.0.0.1:{free_port()}/astest", tmp_path / "state")
    cache = session.client(use)
    assert cache is not None
    assert cache.fetch("3" * 64, {}, lambda _: True) is None  # refused: off, and said once
    assert session.client(use) is None
    assert RemoteSession().client(use) is None  # as another process of the same call
    other_call = use_of(use.settings.base_url, tmp_path / "state", call="call-2")
    fresh = session.client(other_call)
    assert fresh is not None
    assert fresh.fetch("3" * 64, {}, lambda _: True) is None
    warnings = [line for line in capfd.readouterr().err.splitlines() if "remote cache" in line]
    assert len(warnings) == 2  # one per call
    assert all("cannot connect" in line and "running without it" in line for line in warnings)


def test_closing_lets_the_queued_uploads_end_first(
    cache_server: CacheServer, tmp_path: Path
) -> None:
    session = RemoteSession()
    use = use_of(cache_server.url(), tmp_path / "state")
    cache = session.client(use)
    assert cache is not None
    cache.store("4" * 64, {"blob": b"last words"}, {})
    session.close()  # as at exit
    assert (cache_server.stored / "ac" / ("4" * 64)).is_file()


def test_each_processs_counts_file_goes_through_the_record_codec(tmp_path: Path) -> None:
    """The files one call's processes leave for the summary: written as records, read back as
    records; a file that is not one (damaged, another call's, negative counts) adds nothing."""
    state = tmp_path / "state"
    state.mkdir()
    first = ProcessCounts("call-1", RemoteCounts(3, 1, 2, 900), (("wasi", "math"),))
    second = ProcessCounts("call-1", RemoteCounts(1, 0, 0, 0), (("web", "dom"),))
    (state / "call-1-10.json").write_text(json.dumps(encode(first)))
    (state / "call-1-11.json").write_text(json.dumps(encode(second)))
    (state / "call-1-12.json").write_text('{"session": "call-1", "counts": {"hits": "9"}}')
    negative = ProcessCounts("call-1", RemoteCounts(-5, 0, 0, 0))
    (state / "call-1-13.json").write_text(json.dumps(encode(negative)))
    elsewhere = ProcessCounts("call-2", RemoteCounts(7, 7, 7, 7))
    (state / "call-1-14.json").write_text(json.dumps(encode(elsewhere)))
    counts = read_call_counts(state, "call-1")
    assert counts.counts == RemoteCounts(hits=4, misses=1, uploaded=2, uploaded_bytes=900)
    assert counts.served == frozenset({("wasi", "math"), ("web", "dom")})
    assert decode(ProcessCounts, encode(first)) == first


def test_a_counts_file_linked_to_a_fifo_or_elsewhere_counts_nothing(tmp_path: Path) -> None:
    """The state folder is under the output folder, where a pull request can commit anything."""
    state = tmp_path / "state"
    state.mkdir()
    own = ProcessCounts("call-1", RemoteCounts(1, 0, 0, 0), (("wasi", "math"),))
    (state / "call-1-10.json").write_text(json.dumps(encode(own)))
    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps(encode(ProcessCounts("call-1", RemoteCounts(50, 0, 0, 0)))))
    (state / "call-1-11.json").symlink_to(planted)
    fifo = fifo_symlink(state / "call-1-12.json")
    counts = without_waiting(lambda: read_call_counts(state, "call-1"), fifo)
    assert counts.counts == RemoteCounts(hits=1, misses=0, uploaded=0, uploaded_bytes=0)
