"""What a run produces, as data: the guest's report payload, result records, test cases, snapshots,
crash records and spec logs.
"""
