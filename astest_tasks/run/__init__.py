"""Running a built spec: the runtimes (in-process wasmtime, external runner, web), the WIPC
channel, limits and the outcome.
"""
