"""Batched engines: thousands of games of one env stepped at once in NumPy (see :mod:`.engine`)."""
