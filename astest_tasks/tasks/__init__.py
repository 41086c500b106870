"""Everything that knows doit: the task creator, its options, actions, up-to-date checks, cleaning
and pipelines.
"""
