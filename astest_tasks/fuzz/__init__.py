"""Fuzz campaigns as data: runs and seeds, the fuzzer's report, results and crash records."""
