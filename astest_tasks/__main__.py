"""``python -m astest_tasks``: the same as the ``astest`` command."""

from __future__ import annotations

import sys

from astest_tasks.cli import main

sys.exit(main())
