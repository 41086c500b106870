"""Record the WIPC bytes a real as-test 1.0.7 guest writes, for the wire-version unit tests.

The recording is the guest's whole stdout (frames and passthrough) for one spec whose report is
larger than 64 KiB, so that tests can re-cut its report into the chunked form later as-test
releases send (docs/design/wipc.md §7), from a real report rather than a made-up one. Regenerate it
with

    python tests/tools/record_wire.py

from the repository root after `npm ci`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.wasm_host import HostLimits, run_module

REPO = Path(__file__).resolve().parents[2]
RECORDING = REPO / "tests" / "fixtures" / "wire" / "as-test-1.0.7-large-report.wipc"

# 200 passing tests with long, partly non-ASCII names and a log line each: a report of about
# 73 KB, with multibyte characters throughout. The report holds timings, so its bytes differ from
# run to run; the spec is run until as-test 1.1.0's 64 KiB cut lands inside a character, the case
# that shows a host must join chunks before decoding them.
LARGE_SPEC = """\
import { describe, expect, test, log } from "as-test";

// AssemblyScript has no closures: each test reads the module-level counter instead of i.
let counter = 0;

describe("a suite with a long report \u2013 größer als ein Block", () => {
  for (let i = 0; i < 200; i++) {
    test("case " + i.toString() + " — " + "€ü".repeat(12), () => {
      counter++;
      log("Zähler " + "€".repeat(16) + counter.toString());
      expect(counter * 2).toBe(counter + counter);
    });
  }
});
"""

CONFIG = {
    "input": ["assembly/__tests__/*.spec.ts"],
    "output": ".as-test/",
    "modes": {"wasi": {"buildOptions": {"target": "wasi"}}},
}
CHUNK_BYTES = 65536
ATTEMPTS = 500
DODO = "from astest_tasks import task_astest  # noqa: F401\n"


class RecordingChannel(ProtocolChannel):
    def __init__(self) -> None:
        super().__init__(None)
        self.recorded = bytearray()

    def write_stdout(self, data: bytes) -> None:
        self.recorded += data
        super().write_stdout(data)


def record() -> bytes:
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        (project / "assembly" / "__tests__").mkdir(parents=True)
        (project / "assembly" / "__tests__" / "large.spec.ts").write_text(LARGE_SPEC)
        (project / "as-test.config.json").write_text(json.dumps(CONFIG))
        (project / "package.json").write_text('{"private": true, "type": "module"}\n')
        (project / "dodo.py").write_text(DODO)
        (project / "node_modules").symlink_to(REPO / "node_modules")
        subprocess.run([sys.executable, "-m", "doit"], cwd=project, check=True)
        (wasm,) = (project / ".as-test").rglob("large.spec.wasm")
        for _ in range(ATTEMPTS):
            channel = RecordingChannel()
            run = run_module(wasm, "wasi", channel, HostLimits(timeout_s=30.0), {})
            if run.exit_code != 0 or channel.report_payload is None:
                raise SystemExit(f"the recording run failed: {run}")
            if _cut_splits_a_character(channel.report_payload):
                return bytes(channel.recorded)
        raise SystemExit(f"no run in {ATTEMPTS} put the 64 KiB cut inside a character")


def _cut_splits_a_character(report: bytes) -> bool:
    return len(report) > CHUNK_BYTES and (report[CHUNK_BYTES] & 0xC0) == 0x80


def main() -> None:
    RECORDING.parent.mkdir(parents=True, exist_ok=True)
    recorded = record()
    RECORDING.write_bytes(recorded)
    print(f"wrote {RECORDING.relative_to(REPO)} ({len(recorded)} bytes)")


if __name__ == "__main__":
    main()
