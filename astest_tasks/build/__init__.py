"""Compiling a spec: asc (one-off or the persistent compile server), its flags and the imports a
spec reaches.
"""
