"""How many runs a fuzz campaign makes and from which seed: the ``fuzz:config`` answer.

The guest asks once per build (``{"kind":"fuzz:config"}``) and reads four lines back: the base runs,
the seed, and an override kind and value (docs/design/host-contract.md §10). The guest applies the
override to each fuzzer's own run count, so ``+10%`` grows a fuzzer that asks for 200 runs by 20 and
one that takes the config's 1000 by 100; the host cannot do that for it."""

from __future__ import annotations

import random
import re
from enum import IntEnum

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen

MAX_SEED = 2**31 - 1  # as-test 1.1.0 draws random seeds from [0, 2^31 - 1]
RUNS_EXAMPLES = "500, 1.5x, +10% or +100000"


class OverrideKind(IntEnum):
    """The guest's codes for the override (``applyFuzzRunsOverride`` in as-test)."""

    NONE = 0
    SET = 1
    SCALE = 2
    ADD = 3
    PERCENT_ADD = 4


@frozen
class RunsOverride:
    kind: OverrideKind = OverrideKind.NONE
    value: float = 0.0

    @property
    def text(self) -> str:
        """The override as the user writes it, for repro commands and the summary."""
        if self.kind is OverrideKind.SET:
            return f"{self.value:g}"
        if self.kind is OverrideKind.SCALE:
            return f"{self.value:g}x"
        if self.kind is OverrideKind.ADD:
            return f"{self.value:+g}"
        if self.kind is OverrideKind.PERCENT_ADD:
            return f"{self.value:+g}%"
        return ""

    def apply(self, base_runs: int) -> int:
        """What the guest will run for a fuzzer of ``base_runs`` (as-test: at least one)."""
        runs = base_runs
        if self.kind is OverrideKind.SET:
            runs = round(self.value)
        elif self.kind is OverrideKind.SCALE:
            runs = round(base_runs * self.value)
        elif self.kind is OverrideKind.ADD:
            runs = base_runs + round(self.value)
        elif self.kind is OverrideKind.PERCENT_ADD:
            runs = base_runs + round(base_runs * self.value / 100)
        return max(1, runs)


_SET = re.compile(r"\d+")
_ADD = re.compile(r"[+-]\d+")
_SCALE = re.compile(r"\d+(?:\.\d+)?x", re.IGNORECASE)
_PERCENT = re.compile(r"[+-]\d+(?:\.\d+)?%")


def parse_runs_override(text: str, option: str = "--fuzz-runs") -> RunsOverride:
    """``500`` sets, ``1.5x`` scales, ``+100000`` adds, ``+10%`` adds a share; "" keeps."""
    value = text.strip()
    if not value:
        return RunsOverride()
    if _SET.fullmatch(value):
        if int(value) <= 0:
            raise _bad_runs(option, text, "a run count must be at least 1")
        return RunsOverride(OverrideKind.SET, float(int(value)))
    if _ADD.fullmatch(value):
        return RunsOverride(OverrideKind.ADD, float(int(value)))
    if _SCALE.fullmatch(value):
        factor = float(value[:-1])
        if factor <= 0:
            raise _bad_runs(option, text, "a multiplier must be greater than 0")
        return RunsOverride(OverrideKind.SCALE, factor)
    if _PERCENT.fullmatch(value):
        return RunsOverride(OverrideKind.PERCENT_ADD, float(value[:-1]))
    raise _bad_runs(option, text, "it is not a run count or expression")


def _bad_runs(option: str, text: str, problem: str) -> UserError:
    return UserError(f"{option} {text!r}: {problem}; fix: write it as {RUNS_EXAMPLES}")


def parse_seed(text: str, option: str = "--fuzz-seed") -> int | None:
    """A pinned seed, or None for "draw one"."""
    value = text.strip()
    if not value:
        return None
    if not value.isdigit():
        raise UserError(
            f"{option} {text!r}: a seed is a whole number, 0 or greater; fix: give the seed a "
            "failing run printed, e.g. --fuzz-seed=1337"
        )
    return int(value)


def random_seed() -> int:
    return random.SystemRandom().randint(0, MAX_SEED)


@frozen
class FuzzCampaign:
    """What one fuzz run is told: runs, seed, and whether the seed was drawn at random."""

    runs: int
    seed: int
    seed_is_random: bool
    override: RunsOverride = RunsOverride()

    def reply(self) -> bytes:
        """The ``fuzz:config`` answer: ``runs\\nseed\\nkind\\nvalue``."""
        runs = (
            self.override.apply(self.runs) if self.override.kind is OverrideKind.SET else self.runs
        )
        value = f"{self.override.value:g}"
        return f"{runs}\n{self.seed}\n{int(self.override.kind)}\n{value}".encode()


def replay_command(run_command: str, seed: int, runs: str = "1") -> str:
    """The command that replays a campaign (a failing iteration: its seed, one run). Options
    go through the environment: doit reads task options only right after the creator's name."""
    runs_part = f"ASTEST_FUZZ_RUNS={runs} " if runs else ""
    return f"ASTEST_FUZZ_SEED={seed} {runs_part}{run_command}"
