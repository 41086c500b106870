"""The limits a spec runs under, each with a value for every mode and optional per-mode values.

Written as one option (``--timeout=10,web=30``, in one word: doit takes a separate word with an
``=`` for one of its own variables): a plain number applies to every mode, and ``mode=number``
entries override it for that mode. The as-test config has no place for them, and
as-test itself rejects keys it does not know, so they stay options of the doit task.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import field

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen


@frozen
class PerMode:
    default: float
    by_mode: Mapping[str, float] = field(default_factory=dict)

    def for_mode(self, mode: str) -> float:
        return self.by_mode.get(mode, self.default)


MIB = 1024 * 1024  # the MiB of the memory and output options


@frozen
class LimitSpec:
    option: str  # --timeout
    env_var: str  # ASTEST_TIMEOUT
    unit: str  # "seconds"
    default: float
    maximum: float


def parse_per_mode(text: str, limit: LimitSpec, modes: Collection[str]) -> PerMode:
    default = limit.default
    by_mode: dict[str, float] = {}
    for entry in (piece.strip() for piece in str(text).split(",")):
        if not entry:
            continue
        mode, _, value = entry.rpartition("=")
        number = _number(value.strip(), entry, limit)
        if not mode:
            default = number
        elif mode.strip() in modes:
            by_mode[mode.strip()] = number
        else:
            known = ", ".join(sorted(modes)) or "(none)"
            raise UserError(
                f"{limit.option} {text!r}: there is no mode {mode.strip()!r} (modes: {known}); "
                f"fix: write e.g. `{limit.option}=10,{next(iter(sorted(modes)), 'wasi')}=30`"
            )
    return PerMode(default, by_mode)


def _number(value: str, entry: str, limit: LimitSpec) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not (0 < number <= limit.maximum):
        raise UserError(
            f"{limit.option}: {entry!r} is not a number of {limit.unit} above 0 and at most "
            f"{limit.maximum:g}; fix: pass e.g. `{limit.option} {limit.default:g}` or "
            f"{limit.env_var}={limit.default:g}, or `mode=number` for one mode"
        )
    return number


# Bazel's default ("medium") test size: far above any reasonable real spec (a key-stretching spec
# takes 20 s), yet a hang still costs minutes, not the whole CI job. as-test has no limit at all.
TIMEOUT = LimitSpec("--timeout", "ASTEST_TIMEOUT", "seconds", 300.0, 86_400.0)
MEMORY_LIMIT = LimitSpec("--memory-limit", "ASTEST_MEMORY_LIMIT", "MiB", 1024.0, 4096.0)
OUTPUT_LIMIT = LimitSpec("--output-limit", "ASTEST_OUTPUT_LIMIT", "MiB", 64.0, 4096.0)


@frozen
class ModeLimits:
    """One mode's limits, as a run (and a fuzz run) applies them."""

    timeout_s: float
    memory_mib: float
    output_mib: float

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_mib * MIB)

    @property
    def output_bytes(self) -> int:
        return int(self.output_mib * MIB)

    def as_key(self) -> tuple[float, float, float]:
        return (self.timeout_s, self.memory_mib, self.output_mib)
