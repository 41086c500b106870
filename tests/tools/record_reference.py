"""Record what as-test's own CLI (`npx ast test`, as-test 1.0.7) reports for each fixture spec.

The integration tests compare our verdicts and counts with these numbers. Regenerate them with

    python tests/tools/record_reference.py

from the repository root after `npm ci`. Each spec is run alone, once per mode, in a scratch copy
of its fixture whose config is narrowed to that spec and given as-test's stock Node runner for the
mode's target (as-test 1.0.7 runs every mode with the base runtime command otherwise), so that
as-test's duplicate-basename and runner quirks do not blur the reference.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
TIME_LIMIT_S = 30
COUNT_LINE = re.compile(r"^(Files|Suites|Tests):\s+(\d+) failed,\s+(\d+) skipped,\s+(\d+) total")


def record_fixture(name: str) -> dict[str, object]:
    fixture = FIXTURES / name
    config = json.loads((fixture / "as-test.config.json").read_text())
    specs = sorted(
        str(p.relative_to(fixture)) for p in (fixture / "assembly" / "__tests__").rglob("*.spec.ts")
    )
    runs = []
    for mode_name, mode in config["modes"].items():
        target = mode["buildOptions"]["target"]
        for spec in specs:
            runs.append(record_one(fixture, spec, mode_name, target))
    return {"as_test": "1.0.7", "runs": runs}


def record_one(fixture: Path, spec: str, mode_name: str, target: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / fixture.name
        shutil.copytree(fixture, project, ignore=shutil.ignore_patterns("reference.json"))
        (project / "node_modules").symlink_to(REPO / "node_modules")
        narrowed = {
            "input": [spec],
            "output": ".as-test/",
            "modes": {
                mode_name: {
                    "buildOptions": {"target": target},
                    "runOptions": {
                        "runtime": {"cmd": f"node ./.as-test/runners/default.{target}.js <file>"}
                    },
                }
            },
        }
        (project / "as-test.config.json").write_text(json.dumps(narrowed))
        command = ["npx", "ast", "test", "--mode", mode_name]
        try:
            proc = subprocess.run(
                command,
                cwd=project,
                capture_output=True,
                text=True,
                timeout=TIME_LIMIT_S,
                env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"},
            )
        except subprocess.TimeoutExpired:
            return {
                "spec": spec,
                "mode": mode_name,
                "command": " ".join(command),
                "finished": False,
                "note": f"did not finish within {TIME_LIMIT_S} s",
            }
        counts: dict[str, dict[str, int]] = {}
        for line in proc.stdout.splitlines():
            match = COUNT_LINE.match(line.strip())
            if match:
                failed, skipped, total = (int(g) for g in match.groups()[1:])
                counts[match.group(1).lower()] = {
                    "failed": failed,
                    "skipped": skipped,
                    "passed": total - failed - skipped,
                }
        result: dict[str, object] = {
            "spec": spec,
            "mode": mode_name,
            "command": " ".join(command),
            "finished": True,
            "exit_code": proc.returncode,
            **counts,
        }
        if not counts:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            result["note"] = " | ".join(tail)
        return result


def main() -> int:
    for name in sys.argv[1:] or ["passing", "failing"]:
        reference = record_fixture(name)
        out = FIXTURES / name / "reference.json"
        out.write_text(json.dumps(reference, indent=2) + "\n")
        print(f"wrote {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
