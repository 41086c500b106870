"""What doit's workers run: the build, run, fuzz, summary and remote-cache actions, the
cleaning doit clean calls, and how a failed action reports to doit.
"""
