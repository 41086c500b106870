"""What people and CI read: the summary, the console, JUnit/TAP, coverage and fuzz summaries,
report merging.
"""
