"""The example project's pipeline: every as-test spec as an incremental doit task."""

from astest_tasks import task_astest  # noqa: F401

DOIT_CONFIG = {"backend": "sqlite3", "verbosity": 1}
