"""What the user asked for: the as-test config file and its per-version rules, the toolchain, specs
and their selection, modes, shards and switches.
"""
