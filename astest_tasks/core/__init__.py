"""Foundations every stage shares: errors, atomic writes, guest text, process environment,
interrupts, the version.
"""
