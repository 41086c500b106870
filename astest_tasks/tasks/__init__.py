"""doit's side of the package: the task creator that turns a call's plan (plan/) into doit's
dicts, naming the actions (actions/) its workers run, the up-to-date checks and the
``astest:doctor`` task.
"""
