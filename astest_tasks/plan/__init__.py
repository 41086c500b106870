"""The plan of one doit call: what was asked (options, command line), which specs and modes,
with which settings. Knows no doit, not even through what it imports (a test keeps it so).
"""
