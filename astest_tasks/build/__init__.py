"""Compiling a spec: asc (one-off, or in a persistent compile server the schedule stage keeps),
its flags and the imports a spec reaches.
"""
