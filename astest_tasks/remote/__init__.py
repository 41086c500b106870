"""Sharing results across machines: a client of Bazel's HTTP remote-cache protocol (``/cas/``
blobs and ``/ac/`` entries), signed entries, portable keys and the summary line. Knows nothing of
doit; the tasks stage decides what to look up and what to store.
"""
