"""Agreement by construction, at scale: thousands of generated specs (tests/tools/spec_generator.py)
run by us and by ``ast test`` of the same as-test, in batches, with the disagreements printed.

    .venv/bin/python bench/run_random_agreement.py --toolchain 1.8.0 --specs 2000 --batch 100

Each batch has its own seed (the first seed plus the batch number), printed with its result, so a
disagreeing batch is replayed by the test with ``ASTEST_SPEC_SEED=<seed> ASTEST_SPEC_COUNT=<n>``.
Run the README's test command once first: it installs both toolchains.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.random_agreement import disagreements  # noqa: E402
from tests.integration.toolchains import BY_VERSION, ensure_installed  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolchain", choices=sorted(BY_VERSION), default="1.8.0")
    parser.add_argument("--specs", type=int, default=1000, help="specs in all [1000]")
    parser.add_argument("--batch", type=int, default=100, help="specs per project [100]")
    parser.add_argument("--seed", type=int, default=None, help="the first batch's seed")
    args = parser.parse_args()
    toolchain = BY_VERSION[args.toolchain]
    ensure_installed(toolchain)
    first = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    compared = disagreeing = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="astest-agreement-") as scratch:
        for number, done in enumerate(range(0, args.specs, args.batch)):
            count = min(args.batch, args.specs - done)
            seed = first + number
            batch_compared, found = disagreements(Path(scratch), seed, count, toolchain)
            compared += batch_compared
            disagreeing += len(found)
            print(f"batch {number}: seed {seed}, {batch_compared} specs, {len(found)} disagree")
            for line in found:
                print(f"  {line}")
    elapsed = time.monotonic() - started
    print(
        f"as-test {toolchain.as_test}: {compared} specs compared, {disagreeing} disagree "
        f"({elapsed:.0f} s)"
    )
    return 1 if disagreeing else 0


if __name__ == "__main__":
    sys.exit(main())
