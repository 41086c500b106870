"""The HTML report: what a person sees of a run, in one folder that opens from a file:// URL.

``view`` turns the stored results into the page's data (plain values, bounded for big suites),
``source_view`` the lines of source a failure or a coverage point names, ``charts`` the small
duration charts, and ``page`` renders them with the autoescaping templates of
``templates/html/``. The report format itself is output/formats/html_report.py.
"""
