"""Tests for astest_tasks.schedule.build_prefetch: compiling the next build while a spec runs."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compile_server import CompileOutput
from astest_tasks.schedule.build_prefetch import (
    LOOK_AHEAD,
    SWITCH_VARIABLE,
    BuildPrefetcher,
    PlannedBuild,
    bound_to_build,
    enabled,
    first_bound_build,
    input_stamps,
    next_build,
)
from tests.conftest import make_build_request

MODULE = b"\0asm\1\0\0\0"


def request(root: Path, spec_id: str, mode: str = "wasi", build_cmd: str = "") -> BuildRequest:
    return make_build_request(root, spec_id, mode, build_cmd)


def spec_source(root: Path, spec_id: str) -> str:
    source = root / "assembly" / "__tests__" / f"{spec_id}.spec.ts"
    source.parent.mkdir(parents=True, exist_ok=True)
    if not source.exists():
        source.write_text(f'describe("{spec_id}", () => {{}});\n')
    return str(source)


def planned(root: Path, *spec_ids: str) -> BuildPrefetcher:
    prefetcher = BuildPrefetcher()
    for spec_id in spec_ids:
        prefetcher.plan("astest", request(root, spec_id), [spec_source(root, spec_id)])
    return prefetcher


class FakeCompiler:
    """Writes a module (and a source map, as asc does) where it is told; counts its calls."""

    def __init__(self, exit_code: int = 0, gate: threading.Event | None = None) -> None:
        self.exit_code = exit_code
        self.gate = gate
        self.compiled: list[str] = []

    def __call__(self, build: BuildRequest, out_file: Path) -> CompileOutput | None:
        if self.gate is not None:
            self.gate.wait(timeout=30)
        self.compiled.append(build.spec.spec_id)
        out_file.write_bytes(MODULE)
        out_file.with_name(out_file.name + ".map").write_text("{}")
        return CompileOutput(self.exit_code, b"", b"")


def scratch_folder(into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    return into


def leftovers(root: Path) -> list[str]:
    """Scratch folders left behind, once every compile thread has ended (a compile that was
    dropped while it wrote removes its folder again when it returns)."""
    for thread in threading.enumerate():
        if thread.name == "astest-prefetch":
            thread.join(timeout=30)
    return [p.name for p in root.rglob(".asc-prefetch-*")]


def test_the_next_unbuilt_spec_is_compiled_and_taken_with_its_files(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b", "c")
    compiler = FakeCompiler()
    assert prefetcher.start_after(("astest", "wasi", "a"), compiler)
    into = scratch_folder(tmp_path / "scratch")
    output = prefetcher.take(request(tmp_path, "b"), into)
    assert output == CompileOutput(0, b"", b"")
    assert compiler.compiled == ["b"]
    assert (into / "b.spec.wasm").read_bytes() == MODULE
    assert (into / "b.spec.wasm.map").is_file()
    assert leftovers(tmp_path) == []


def test_a_build_that_is_up_to_date_is_skipped(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b", "c")
    for spec_id in ("b",):
        for name in (f"{spec_id}.spec.wasm", f"{spec_id}.build.json"):
            built = tmp_path / ".as-test" / "build" / "wasi" / name
            built.parent.mkdir(parents=True, exist_ok=True)
            built.write_bytes(MODULE)
    source = Path(spec_source(tmp_path, "b"))
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))  # older than its outputs
    compiler = FakeCompiler()
    assert prefetcher.start_after(("astest", "wasi", "a"), compiler)
    assert prefetcher.take(request(tmp_path, "c"), scratch_folder(tmp_path / "s")) is not None
    assert compiler.compiled == ["c"]


def test_an_input_newer_than_the_outputs_makes_a_build_bound_to_run(tmp_path: Path) -> None:
    source = spec_source(tmp_path, "a")
    build = PlannedBuild("astest", request(tmp_path, "a"), (source,))
    assert bound_to_build(build)  # no outputs yet
    for path in (build.wasm(), build.record()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(MODULE)
        os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))
    assert not bound_to_build(build)
    os.utime(source, ns=(3_000_000_000, 3_000_000_000))
    assert bound_to_build(build)


def test_an_input_changed_after_the_compile_started_throws_the_compile_away(
    tmp_path: Path,
) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    gate = threading.Event()
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler(gate=gate))
    source = Path(spec_source(tmp_path, "b"))
    source.write_text('describe("b, edited while it compiled", () => {});\n')
    gate.set()
    into = scratch_folder(tmp_path / "scratch")
    assert prefetcher.take(request(tmp_path, "b"), into) is None
    assert list(into.iterdir()) == []
    assert leftovers(tmp_path) == []


def test_another_request_does_not_take_it_and_the_right_one_still_can(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler())
    other = replace(request(tmp_path, "b"), build_args=("--debug",))
    assert prefetcher.take(other, scratch_folder(tmp_path / "s1")) is None
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s2")) is not None


def test_a_failed_compile_is_not_taken(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler(exit_code=1))
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is None
    assert leftovers(tmp_path) == []


def test_a_compiler_that_raises_or_has_no_server_gives_nothing(tmp_path: Path) -> None:
    def broken(build: BuildRequest, out_file: Path) -> CompileOutput | None:
        raise RuntimeError("the server fell over")

    def no_server(build: BuildRequest, out_file: Path) -> CompileOutput | None:
        return None

    for compiler in (broken, no_server):
        prefetcher = planned(tmp_path, "a", "b")
        assert prefetcher.start_after(("astest", "wasi", "a"), compiler)
        assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is None


def test_one_prefetch_at_a_time_and_none_after_the_last_build(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b", "c")
    gate = threading.Event()
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler(gate=gate))
    assert not prefetcher.start_after(("astest", "wasi", "b"), FakeCompiler())
    assert not prefetcher.settle(timeout=0.01)  # held at the gate
    gate.set()
    assert prefetcher.settle(timeout=30)
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is not None
    assert not prefetcher.start_after(("astest", "wasi", "c"), FakeCompiler())
    assert not prefetcher.start_after(("astest", "bindings", "a"), FakeCompiler())  # not planned
    assert not prefetcher.start_after(("other", "wasi", "a"), FakeCompiler())


def test_custom_build_commands_are_never_prefetched(tmp_path: Path) -> None:
    prefetcher = BuildPrefetcher()
    prefetcher.plan("astest", request(tmp_path, "a"), [spec_source(tmp_path, "a")])
    custom = request(tmp_path, "b", build_cmd="make <outFile>")
    prefetcher.plan("astest", custom, [spec_source(tmp_path, "b")])
    assert not prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler())


def test_close_drops_the_prefetch_and_stops_new_ones(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b", "c")
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler())
    prefetcher.close()
    assert leftovers(tmp_path) == []
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is None
    assert not prefetcher.start_after(("astest", "wasi", "b"), FakeCompiler())


def test_input_stamps_tell_missing_files(tmp_path: Path) -> None:
    present = tmp_path / "present.ts"
    present.write_text("x")
    stamps = input_stamps([str(present), str(tmp_path / "absent.ts")])
    assert stamps[str(tmp_path / "absent.ts")] is None
    assert stamps[str(present)] == (present.stat().st_mtime_ns, 1)


def test_enabled_only_on_the_main_thread_unless_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SWITCH_VARIABLE, raising=False)
    assert enabled()
    assert not enabled({SWITCH_VARIABLE: "0"})
    seen: list[bool] = []
    worker = threading.Thread(target=lambda: seen.append(enabled()))
    worker.start()
    worker.join()
    assert seen == [False]


def test_a_prefetch_doit_went_past_is_dropped_when_a_later_run_starts(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b", "c", "d")
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler())  # compiles b
    # doit found b up to date after all and ran c: the run of c prefetches d instead.
    assert prefetcher.take(request(tmp_path, "c"), scratch_folder(tmp_path / "s1")) is None
    assert prefetcher.settle(timeout=30)
    compiler = FakeCompiler()
    assert prefetcher.start_after(("astest", "wasi", "c"), compiler)
    assert prefetcher.take(request(tmp_path, "d"), scratch_folder(tmp_path / "s2")) is not None
    assert compiler.compiled == ["d"]
    assert leftovers(tmp_path) == []


def test_tasks_made_again_replace_their_plan_and_a_prefetch_of_the_old_one(
    tmp_path: Path,
) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler())
    # Watch mode makes the tasks again: b now builds with other flags.
    changed = replace(request(tmp_path, "b"), build_args=("--debug",))
    prefetcher.plan("astest", request(tmp_path, "a"), [spec_source(tmp_path, "a")])
    prefetcher.plan("astest", changed, [spec_source(tmp_path, "b")])
    assert leftovers(tmp_path) == []
    compiler = FakeCompiler()
    assert prefetcher.start_after(("astest", "wasi", "a"), compiler)
    assert prefetcher.take(changed, scratch_folder(tmp_path / "s")) is not None
    assert compiler.compiled == ["b"]


def built(build: PlannedBuild, at_ns: int) -> None:
    for path in (build.wasm(), build.record()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(MODULE)
        os.utime(path, ns=(at_ns, at_ns))


def test_next_build_prefers_unbuilt_then_the_same_spec_in_another_mode(tmp_path: Path) -> None:
    def build(spec_id: str, mode: str) -> PlannedBuild:
        return PlannedBuild(
            "astest", request(tmp_path, spec_id, mode), (spec_source(tmp_path, spec_id),)
        )

    wasi_b, bindings_a, bindings_b = (
        build("b", "wasi"),
        build("a", "bindings"),
        build("b", "bindings"),
    )
    following = [wasi_b, bindings_a, bindings_b]
    # A cold run: nothing built, doit's order.
    assert next_build(("astest", "wasi", "a"), following) == wasi_b
    # a was edited; b's sources were touched (a checkout) but doit will find them unchanged.
    for planned_build in following:
        built(planned_build, 2_000_000_000)
    for spec_id in ("a", "b"):
        os.utime(spec_source(tmp_path, spec_id), ns=(3_000_000_000, 3_000_000_000))
    assert next_build(("astest", "wasi", "a"), following) == bindings_a
    # Nothing of the same spec left: the first bound to build.
    assert next_build(("astest", "wasi", "c"), following) == wasi_b
    os.utime(spec_source(tmp_path, "b"), ns=(1_000_000_000, 1_000_000_000))
    assert next_build(("astest", "wasi", "c"), following) == bindings_a
    os.utime(spec_source(tmp_path, "a"), ns=(1_000_000_000, 1_000_000_000))
    assert next_build(("astest", "wasi", "c"), following) is None


def test_an_environment_changed_meanwhile_throws_the_compile_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler())
    # An in-process runner script set a variable while its spec ran.
    monkeypatch.setenv("ASC_FLAG_FROM_A_RUNNER", "1")
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is None
    assert leftovers(tmp_path) == []


def test_next_build_looks_a_bounded_way_ahead_but_always_at_the_same_spec(tmp_path: Path) -> None:
    def build(spec_id: str, mode: str) -> PlannedBuild:
        return PlannedBuild(
            "astest", request(tmp_path, spec_id, mode), (spec_source(tmp_path, spec_id),)
        )

    far = [build(f"s{i:03}", "wasi") for i in range(LOOK_AHEAD + 8)]
    same = build("a", "bindings")
    for planned_build in [*far, same]:
        built(planned_build, 2_000_000_000)
    for planned_build in [*far, same]:
        os.utime(planned_build.inputs[0], ns=(1_000_000_000, 1_000_000_000))
    os.utime(far[-1].inputs[0], ns=(3_000_000_000, 3_000_000_000))  # bound, but far ahead
    assert next_build(("astest", "wasi", "a"), [*far, same]) is None
    os.utime(spec_source(tmp_path, "a"), ns=(3_000_000_000, 3_000_000_000))
    assert next_build(("astest", "wasi", "a"), [*far, same]) == same


def test_a_changed_file_starts_the_first_build_that_reads_it_and_is_due(tmp_path: Path) -> None:
    """Watch mode's head start: the saved spec's build, before its cycle loads the tasks."""
    prefetcher = planned(tmp_path, "a", "b", "c")
    builds = {build.key[2]: build for build in prefetcher.planned()}
    for build in builds.values():
        built(build, 2_000_000_000)
        os.utime(build.inputs[0], ns=(1_000_000_000, 1_000_000_000))
    saved = builds["b"].inputs[0]
    os.utime(saved, ns=(3_000_000_000, 3_000_000_000))
    compiler = FakeCompiler()
    assert prefetcher.start_for([saved, str(tmp_path / "unrelated.ts")], compiler)
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is not None
    assert compiler.compiled == ["b"]
    # A file no build reads, or one whose build is up to date: nothing to start.
    assert not prefetcher.start_for([str(tmp_path / "unrelated.ts")], FakeCompiler())
    assert not prefetcher.start_for([builds["c"].inputs[0]], FakeCompiler())
    assert leftovers(tmp_path) == []


def test_a_head_start_replaces_a_finished_compile_nobody_took(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler())  # b, never taken
    assert prefetcher.settle(timeout=30)
    compiler = FakeCompiler()
    assert prefetcher.start_for([spec_source(tmp_path, "a")], compiler)
    assert prefetcher.take(request(tmp_path, "a"), scratch_folder(tmp_path / "s")) is not None
    assert compiler.compiled == ["a"]
    assert leftovers(tmp_path) == []


def test_a_head_start_waits_for_no_compile_under_way(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    gate = threading.Event()
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler(gate=gate))
    assert not prefetcher.start_for([spec_source(tmp_path, "a")], FakeCompiler())
    gate.set()
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is not None


def test_the_follow_up_is_set_up_before_the_build_is_let_go_and_done_after(
    tmp_path: Path,
) -> None:
    """The follow-up (wasmtime's compile of the module) gets its place before the build can
    take asc's output, and does its work after the build is let go."""
    prefetcher = planned(tmp_path, "a", "b")
    taken, finished = threading.Event(), threading.Event()
    events: list[str] = []

    def follow_up(wasm: bytes) -> Callable[[], None]:
        events.append(f"set up with {len(wasm)} bytes, taken: {taken.is_set()}")

        def work() -> None:
            if taken.wait(timeout=30):  # the build took its output while this was to come
                events.append("done after the build took it")
            finished.set()

        return work

    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler(), follow_up)
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is not None
    taken.set()
    assert finished.wait(timeout=30)
    assert events == [
        f"set up with {len(MODULE)} bytes, taken: False",
        "done after the build took it",
    ]


def test_no_follow_up_after_a_failed_compile(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    followed: list[bytes] = []

    def follow_up(wasm: bytes) -> None:
        followed.append(wasm)

    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler(1), follow_up)
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is None
    assert leftovers(tmp_path) == []  # also waits for the compile's thread to end
    assert followed == []


def test_a_build_waits_for_a_compile_ahead_of_another_build_rather_than_compile_beside_it(
    tmp_path: Path,
) -> None:
    """doit skipped the build compiled ahead (touched but unchanged): the next build waits for
    that compile to end, so that it finds the compile server free instead of starting another."""
    prefetcher = planned(tmp_path, "a", "b", "c")
    gate = threading.Event()
    assert prefetcher.start_after(("astest", "wasi", "a"), FakeCompiler(gate=gate))  # b
    taken: list[CompileOutput | None] = []
    build_c = threading.Thread(
        target=lambda: taken.append(prefetcher.take(request(tmp_path, "c"), tmp_path))
    )
    build_c.start()
    build_c.join(timeout=0.2)
    assert build_c.is_alive()  # held while the compile of b is under way
    gate.set()
    build_c.join(timeout=30)
    assert taken == [None]  # c compiles itself, now with the server to itself
    # The compile of b is still there for b, should doit run it after all.
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is not None


def test_the_first_bound_build_is_looked_for_a_bounded_way_ahead(tmp_path: Path) -> None:
    # What doit's main process starts a shared compile server for (schedule/shared_compiler.py).
    builds = [
        PlannedBuild("astest", request(tmp_path, f"s{i:03}"), (spec_source(tmp_path, f"s{i:03}"),))
        for i in range(LOOK_AHEAD + 2)
    ]
    assert first_bound_build(builds) == builds[0]  # nothing built yet
    for planned_build in builds:
        built(planned_build, 2_000_000_000)
        os.utime(planned_build.inputs[0], ns=(1_000_000_000, 1_000_000_000))
    assert first_bound_build(builds) is None  # all up to date
    os.utime(builds[3].inputs[0], ns=(3_000_000_000, 3_000_000_000))
    assert first_bound_build(builds) == builds[3]
    os.utime(builds[3].inputs[0], ns=(1_000_000_000, 1_000_000_000))
    os.utime(builds[-1].inputs[0], ns=(3_000_000_000, 3_000_000_000))
    assert first_bound_build(builds) is None  # bound, but beyond the look-ahead


def test_a_build_whose_compile_ended_starts_the_next_one_found_by_its_module(
    tmp_path: Path,
) -> None:
    prefetcher = planned(tmp_path, "a", "b", "c")
    compiler = FakeCompiler()
    # What the build of "a" asks, exactly: the module of its own request names its place.
    assert prefetcher.start_after_build(request(tmp_path, "a"), compiler)
    assert prefetcher.settle(timeout=30)
    assert compiler.compiled == ["b"]
    # The run of "a", which starts next, finds the compile of "b" ahead of it: nothing more.
    assert not prefetcher.start_after(("astest", "wasi", "a"), compiler)
    assert prefetcher.take(request(tmp_path, "b"), scratch_folder(tmp_path / "s")) is not None
    assert compiler.compiled == ["b"]
    assert leftovers(tmp_path) == []


def test_a_build_that_was_not_planned_starts_nothing(tmp_path: Path) -> None:
    prefetcher = planned(tmp_path, "a", "b")
    compiler = FakeCompiler()
    assert not prefetcher.start_after_build(request(tmp_path, "z"), compiler)
    assert not prefetcher.start_after_build(request(tmp_path / "elsewhere", "a"), compiler)
    assert compiler.compiled == []
