"""Coverage points: the guest's coverage payload, source lines, include/exclude rules and the
coverage files.
"""
