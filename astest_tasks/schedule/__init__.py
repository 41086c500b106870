"""When and where work happens: one scheduler per process (``scheduler.py``) owns the compile
servers, the builds compiled ahead of their task, and the runs handed to a helper process.
"""
