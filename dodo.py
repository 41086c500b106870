"""This repository's own pipeline: run the example project's specs (dogfood).

doit            # build and run the specs under examples/, print the summary
doit list --all # every build and run task
"""

from astest_tasks import make_astest_tasks

DOIT_CONFIG = {"backend": "sqlite3"}

task_astest = make_astest_tasks("examples")
