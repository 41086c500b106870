"""A fuzz file's result in one mode: the fuzz task's target, read back by the summaries.

Like a spec's result it is JSON, so a pinned-seed campaign that doit skips still shows.
"""

from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.records import decode, encode
from astest_tasks.core.state_files import read_state_file
from astest_tasks.fuzz.fuzzer_report import FuzzerOutcome

FUZZ_RESULT_FORMAT = 1


@frozen
class FuzzResult:
    file: str  # the .fuzz.ts file, relative to the project root
    file_id: str
    mode: str
    passed: bool
    stage: str  # "build" or "run": how far it got
    seed: int
    seed_is_random: bool
    runs_override: str  # as the user wrote it ("" for none)
    fuzzers: tuple[FuzzerOutcome, ...]
    duration_s: float
    session: str
    build_command: str
    error: str = ""  # the compiler's message, the crash, or why no report came
    output: str = ""  # the guest's plain stdout
    crash_records: tuple[str, ...] = ()  # .log files left in the crash folder
    run_command: str = ""  # the command that runs this campaign, for the replay commands

    @classmethod
    def without_outcomes(
        cls,
        *,
        file: str,
        file_id: str,
        mode: str,
        run_command: str,
        session: str,
        error: str,
        stage: str = "run",
        seed: int = 0,
        seed_is_random: bool = False,
        runs_override: str = "",
        build_command: str = "",
    ) -> FuzzResult:
        """A failed campaign with no fuzzer outcomes: not built, never ran, or no result."""
        return cls(
            file=file,
            file_id=file_id,
            mode=mode,
            passed=False,
            stage=stage,
            seed=seed,
            seed_is_random=seed_is_random,
            runs_override=runs_override,
            fuzzers=(),
            duration_s=0.0,
            session=session,
            build_command=build_command,
            error=error,
            run_command=run_command,
        )

    @property
    def runs(self) -> int:
        return sum(fuzzer.runs for fuzzer in self.fuzzers)

    @property
    def failed_fuzzers(self) -> tuple[FuzzerOutcome, ...]:
        return tuple(fuzzer for fuzzer in self.fuzzers if not fuzzer.ok)

    def to_json(self) -> str:
        data = {"format": FUZZ_RESULT_FORMAT, **encode(self)}
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> FuzzResult:
        """Raises ValueError (RecordError naming the field) when ``text`` is not one."""
        data = parse_json(text)
        if not isinstance(data, dict) or data.get("format") != FUZZ_RESULT_FORMAT:
            raise ValueError("not a fuzz result of this version")
        return decode(cls, data)


def write_fuzz_result(path: Path, result: FuzzResult) -> None:
    write_text_atomic(path, result.to_json())


def read_fuzz_result(path: Path) -> FuzzResult | None:
    """None when missing or unreadable: the fuzz task then runs again."""
    data = read_state_file(path)
    if data is None:
        return None
    try:
        return FuzzResult.from_json(data.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and RecordError are ValueErrors
        return None
