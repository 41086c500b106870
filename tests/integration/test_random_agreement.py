"""Agreement by construction: a few dozen generated specs per toolchain, each run by us and by
``ast test`` of the same as-test, must agree file by file. The seed is fresh on every run and
named in the failure; ``ASTEST_SPEC_SEED=<seed>`` replays it, ``ASTEST_SPEC_COUNT`` sets how
many (bench/run_random_agreement.py runs thousands)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.integration.random_agreement import disagreements
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration


def test_generated_specs_agree_with_as_test_file_by_file(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    seed = int(os.environ.get("ASTEST_SPEC_SEED") or random.SystemRandom().randrange(2**31))
    count = int(os.environ.get("ASTEST_SPEC_COUNT") or 24)
    compared, found = disagreements(tmp_path, seed, count, toolchain)
    assert compared == count
    replay = f"replay: ASTEST_SPEC_SEED={seed} ASTEST_SPEC_COUNT={count}"
    assert not found, f"{len(found)} of {count} specs disagree ({replay}):\n" + "\n".join(found)
