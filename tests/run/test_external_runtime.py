"""External runtimes: WIPC relayed over a subprocess's stdio, with limits and clear failures."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from astest_tasks.model.snapshots import SnapshotStore
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.external_runtime import (
    ExternalRuntime,
    resolve_executable,
    run_external,
    spec_short_name,
)
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.runtime import RunnableSpec, SpecLimits
from astest_tasks.run.wipc import FrameType, encode_frame

# A fake runtime: sends a snapshot assertion as a CALL frame, waits for our reply on stdin, then
# echoes the reply as plain output, writes to stderr and exits with the code it was given.
FAKE_RUNTIME = textwrap.dedent(
    f"""\
    #!{sys.executable}
    import json, struct, sys
    message = {{"kind": "snapshot:assert", "key": "a.spec.ts::t", "actual": '"v"'}}
    payload = json.dumps(message).encode()
    header = struct.pack("<4sBI", b"WIPC", 2, len(payload))  # a CALL frame
    sys.stdout.buffer.write(header + payload)
    sys.stdout.buffer.flush()
    reply_header = sys.stdin.buffer.read(9)
    reply = sys.stdin.buffer.read(struct.unpack("<4sBI", reply_header)[2])
    sys.stdout.buffer.write(b"reply=" + reply)
    sys.stdout.buffer.flush()
    sys.stderr.write("args=" + " ".join(sys.argv[1:]))
    sys.exit(int(sys.argv[1]))
    """
)


def make_script(tmp_path: Path, source: str, name: str = "runtime") -> Path:
    script = tmp_path / name
    script.write_text(source)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_frames_and_replies_cross_the_pipes(tmp_path: Path) -> None:
    make_script(tmp_path, FAKE_RUNTIME)
    snapshots = SnapshotStore.load(tmp_path, "a.spec.ts", ".")
    channel = ProtocolChannel(snapshots)
    run = run_external(["./runtime", "3", "x.wasm"], tmp_path, dict(os.environ), channel, 10.0)
    assert run.exit_code == 3
    assert run.start_failure is None
    assert run.stderr == "args=3 x.wasm"
    assert snapshots.missing == 1
    assert channel.output_text == 'reply=0\n"<missing snapshot>"'


def test_a_missing_executable_is_a_clear_start_failure(tmp_path: Path) -> None:
    channel = ProtocolChannel(None)
    run = run_external(["no-such-runtime-xyz", "a.wasm"], tmp_path, dict(os.environ), channel, 5.0)
    assert run.exit_code == 1
    assert run.start_failure is not None
    assert "'no-such-runtime-xyz' was not found" in run.start_failure
    assert "runOptions.runtime.cmd" in run.start_failure


def test_a_hanging_runtime_is_killed_at_the_limit_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    make_script(
        tmp_path,
        f"#!/bin/sh\nsleep 60 &\necho $! > {marker}\nwait\n",
        name="hang.sh",
    )
    started = time.perf_counter()
    run = run_external(["./hang.sh"], tmp_path, dict(os.environ), ProtocolChannel(None), 1.0)
    assert run.timed_out
    assert run.exit_code == 1
    assert time.perf_counter() - started < 8
    child = int(marker.read_text())
    # The kill is sent; how soon the kernel finishes the child depends on the machine's load, so
    # wait for it to end (a ceiling, not a timing the test relies on) rather than sleep and hope.
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(child), "the runtime's child outlived the limit"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its exit status waits to be collected


def test_a_runtime_that_closes_its_output_but_keeps_running_is_timed_out(tmp_path: Path) -> None:
    make_script(tmp_path, "#!/bin/sh\nexec >&- 2>&-\nsleep 60\n", name="quiet.sh")
    run = run_external(["./quiet.sh"], tmp_path, dict(os.environ), ProtocolChannel(None), 1.0)
    assert run.timed_out


def test_env_reaches_the_runtime(tmp_path: Path) -> None:
    make_script(tmp_path, '#!/bin/sh\nprintf "%s" "$AS_TEST_WASM_PATH"\n', name="env.sh")
    channel = ProtocolChannel(None)
    env = {**os.environ, "AS_TEST_WASM_PATH": "out/a.wasm"}
    run = run_external(["./env.sh"], tmp_path, env, channel, 5.0)
    assert run.exit_code == 0
    assert channel.output_text == "out/a.wasm"


def test_data_frames_from_a_runtime_become_the_report(tmp_path: Path) -> None:
    report = json.dumps({"suites": []}).encode()
    frame = encode_frame(FrameType.DATA, report)
    (tmp_path / "frame.bin").write_bytes(frame)
    make_script(tmp_path, "#!/bin/sh\ncat frame.bin\n", name="report.sh")
    channel = ProtocolChannel(None)
    run = run_external(["./report.sh"], tmp_path, dict(os.environ), channel, 5.0)
    assert run.exit_code == 0
    assert channel.report_payload == report


def test_an_executable_path_keeps_the_name_it_was_called_by(tmp_path: Path) -> None:
    # A venv's python is a symlink whose location decides its packages: never resolve it.
    target = make_script(tmp_path, "#!/bin/sh\n", name="real-tool")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/tool").symlink_to(target)
    assert resolve_executable("./bin/tool", tmp_path, dict(os.environ)) == str(
        tmp_path / "bin/tool"
    )


def test_a_runtime_that_stops_reading_its_replies_cannot_stall_us(tmp_path: Path) -> None:
    # 5000 snapshot questions whose answers (about 130 KiB) would fill the pipe, then silence.
    message = {"kind": "snapshot:assert", "key": "a.spec.ts::t", "actual": '"v"'}
    frame = encode_frame(FrameType.CALL, json.dumps(message).encode())
    (tmp_path / "calls.bin").write_bytes(frame * 5000)
    make_script(tmp_path, "#!/bin/sh\ncat calls.bin\nexec sleep 60\n", name="deaf.sh")
    snapshots = SnapshotStore.load(tmp_path, "a.spec.ts", ".")
    outcome: list[GuestRun] = []

    def relay() -> None:
        channel = ProtocolChannel(snapshots)
        outcome.append(run_external(["./deaf.sh"], tmp_path, dict(os.environ), channel, 1.5))

    worker = threading.Thread(target=relay, daemon=True)
    worker.start()
    worker.join(15)
    assert not worker.is_alive(), "the relay blocked writing replies past the time limit"
    run = outcome[0]
    assert run.timed_out is True
    assert snapshots.missing == 5000


# A frame sequence as as-test HEAD's guest sends it (docs/design/wipc.md §8): it blocks for the
# reply to coverage:detail, so a host that does not answer would hang this runtime.
HEAD_SEQUENCE_RUNTIME = textwrap.dedent(
    f"""\
    #!{sys.executable}
    import json, struct, sys

    def frame(kind, payload):
        sys.stdout.buffer.write(struct.pack("<4sBI", b"WIPC", kind, len(payload)) + payload)
        sys.stdout.buffer.flush()

    def call(message):
        frame(2, json.dumps(message).encode())

    call({{"kind": "event:file-start", "file": "a.spec.ts"}})
    call({{"kind": "event:suite-start", "file": "a.spec.ts", "depth": 0,
           "suiteKind": "describe", "description": "head"}})
    call({{"kind": "event:suite-end", "file": "a.spec.ts", "depth": 0,
           "suiteKind": "describe", "description": "head", "verdict": "ok"}})
    call({{"kind": "event:file-end", "file": "a.spec.ts", "verdict": "ok", "time": "1ms"}})
    call({{"kind": "coverage:detail"}})
    header = sys.stdin.buffer.read(9)
    if len(header) < 9:
        sys.exit(7)
    reply = sys.stdin.buffer.read(struct.unpack("<4sBI", header)[2])
    call({{"kind": "coverage:summary", "total": 2, "covered": 1, "uncovered": 1,
           "percent": 50, "detail": int(reply[:1] == b"1")}})
    call({{"kind": "coverage:batch", "file": "a.ts", "points": [[1, 1, "Function", 1]]}})
    frame(3, json.dumps({{"suites": []}}).encode())  # DATA; HEAD: no "coverage" key
    frame(1, b"")  # CLOSE
    """
)


def test_a_later_as_test_guests_coverage_request_is_answered(tmp_path: Path) -> None:
    make_script(tmp_path, HEAD_SEQUENCE_RUNTIME, name="head")
    channel = ProtocolChannel(None)
    run = run_external(["./head"], tmp_path, dict(os.environ), channel, 10.0)
    assert not run.timed_out, "the guest waited for a coverage:detail reply we never sent"
    assert run.exit_code == 0, run
    assert channel.closed
    assert channel.report_payload == b'{"suites": []}'
    assert channel.progress.file_ended


# Does what a stock Node runner does once Node has touched process.stdout: stdout non-blocking,
# then a whole report frame in a single write whose short count is ignored.
ONE_WRITE_RUNTIME = textwrap.dedent(
    f"""\
    #!{sys.executable}
    import json, os, stat, struct, sys
    kinds = [stat.S_ISSOCK(os.fstat(fd).st_mode) for fd in (0, 1, 2)]
    report = json.dumps({{"suites": [], "padding": "x" * 200_000}}).encode()
    os.set_blocking(1, False)
    written = os.write(1, struct.pack("<4sBI", b"WIPC", 3, len(report)) + report)
    sys.stderr.write(json.dumps({{"sockets": kinds, "written": written}}))
    """
)


def test_the_runtimes_stdio_are_sockets_so_one_big_write_arrives_whole(tmp_path: Path) -> None:
    """As under as-test (Node's spawn): a pipe would take 64 KiB of this 200 KiB write."""
    make_script(tmp_path, ONE_WRITE_RUNTIME)
    channel = ProtocolChannel(None)
    run = run_external(["./runtime"], tmp_path, dict(os.environ), channel, 30.0)
    seen = json.loads(run.stderr)
    assert seen["sockets"] == [True, True, True]
    assert seen["written"] == 9 + 200_000 + len('{"suites": [], "padding": ""}')
    assert channel.report_payload is not None
    assert len(json.loads(channel.report_payload)["padding"]) == 200_000


# -- the runtime ---------------------------------------------------------------------------------


def test_name_placeholder_drops_the_first_ts_then_the_first_spec() -> None:
    assert spec_short_name("assembly/__tests__/math.spec.ts") == "math"
    assert spec_short_name("a/b.ts.spec.ts") == "b.ts"  # "b.spec.ts", then "b.ts"


def test_the_scripts_a_command_names_are_its_inputs_and_the_command_is_its_key(
    tmp_path: Path,
) -> None:
    runtime = ExternalRuntime(
        command="node ./runner.mjs <file>",
        tokens=("node", "./runner.mjs", "<file>"),
        scripts=("runner.mjs",),
    )
    assert runtime.input_files(tmp_path) == ["runner.mjs"]
    assert runtime.cache_key == "external runtime `node ./runner.mjs <file>`"
    assert runtime.default_runner_target is None


def test_the_runtime_runs_its_command_per_spec_with_as_tests_variables(tmp_path: Path) -> None:
    make_script(
        tmp_path,
        '#!/bin/sh\necho "$* $AS_TEST_RUNTIME_TARGET $AS_TEST_WASM_PATH $GREETING" >&2\nexit 4\n',
        name="run.sh",
    )
    runtime = ExternalRuntime(
        command="./run.sh <name> <file>", tokens=("./run.sh", "<name>", "<file>"), scripts=()
    )
    spec = RunnableSpec(
        tmp_path, "assembly/__tests__/math.spec.ts", "out/math.wasm", "wasi", {"GREETING": "hi"}
    )
    run = runtime.run(spec, ProtocolChannel(None), SpecLimits(10.0, 1 << 24))
    assert run.exit_code == 4
    assert run.stderr == "math out/math.wasm wasi out/math.wasm hi\n"


# Registers a fork hook, as the scheduler and core/parent_bond.py do, then starts a runtime. A
# hook that runs in the runtime's child between fork and exec can wait for ever on a lock another
# thread held at the fork (a run ahead's pipe): that hung doit (issue 38's review).
_FORK_HOOK_PROBE = """
import os, sys
from pathlib import Path
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.external_runtime import run_external
marker, project = Path(sys.argv[1]), Path(sys.argv[2])
os.register_at_fork(after_in_child=lambda: marker.write_text("a hook ran before the exec"))
run = run_external(["./ok.sh"], project, dict(os.environ), ProtocolChannel(None), 60.0)
print(run.exit_code)
"""


def test_starting_a_runtime_runs_no_fork_hook_of_this_process(tmp_path: Path) -> None:
    make_script(tmp_path, "#!/bin/sh\nexit 0\n", name="ok.sh")
    marker = tmp_path / "hook-ran"
    done = subprocess.run(
        [sys.executable, "-c", _FORK_HOOK_PROBE, str(marker), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0 and done.stdout.strip() == "0", done.stdout + done.stderr
    assert not marker.exists(), marker.read_text()
