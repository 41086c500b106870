"""A spec's durations over its last runs as a small line chart: the numbers of an inline SVG.

Only coordinates are computed here; the template draws them, so no markup is built in Python and
nothing of a spec's text can reach the SVG.
"""

from __future__ import annotations

from collections.abc import Sequence

from astest_tasks.core.frozen import frozen

WIDTH = 120
HEIGHT = 28
_MARGIN = 3


@frozen
class Chart:
    points: str  # the polyline's "x,y x,y ..." (the oldest run leftmost)
    last_x: float  # the latest run, drawn as a dot
    last_y: float
    runs: int
    width: int = WIDTH
    height: int = HEIGHT


def duration_chart(seconds: Sequence[float]) -> Chart | None:
    """The chart of ``seconds`` (oldest first); None for fewer than two runs (no trend)."""
    if len(seconds) < 2:
        return None
    top = max(seconds) or 1.0  # all zero: a flat line at the bottom
    step = (WIDTH - 2 * _MARGIN) / (len(seconds) - 1)
    span = HEIGHT - 2 * _MARGIN
    coordinates = [
        (_MARGIN + index * step, HEIGHT - _MARGIN - span * value / top)
        for index, value in enumerate(seconds)
    ]
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates)
    last_x, last_y = coordinates[-1]
    return Chart(points, round(last_x, 1), round(last_y, 1), len(seconds))
