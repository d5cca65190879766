"""What the statistics screen shows, without drawing it: whose matches, read how far, which
discipline, the numbers (``shared.analysis.stats``), the charts (``shared.analysis.charts``,
the same ones ``carom stats --out`` writes) and where each chart goes in the window.

The matches are read on the network thread (``Bridge.player_logs``, the same requests as
``carom stats``); the screen polls the future once a frame and never waits for it.
"""

from __future__ import annotations

import concurrent.futures
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from client.app.layout import Rect
from client.app.words import discipline_title
from shared.analysis.charts import CHARTS, Chart
from shared.analysis.stats import MatchLog, PlayerStats, player_stats
from shared.protocol import DISCIPLINES

MOST_MATCHES = 200  # the player's latest matches read, as ``carom stats`` reads by default
HEADER = 160  # px above the charts: title, player, discipline, the summary sentence
FOOTER = 30  # px below them
MARGIN = 40  # px at the sides
GAP = 16  # px between charts

LogsFuture = concurrent.futures.Future[list[MatchLog]]
Fetch = Callable[[str, int], LogsFuture]  # (player, most) -> the matches, later


@dataclass
class StatsPage:
    """One player's statistics as the screen shows them."""

    player: str
    logs: tuple[MatchLog, ...] | None = None  # None until read
    failed: str | None = None  # why the matches could not be read, in words
    discipline: str | None = None  # the one shown; None: the player's most played
    pending: LogsFuture | None = field(default=None, repr=False)

    @property
    def loading(self) -> bool:
        return self.pending is not None

    def request(self, fetch: Fetch | None) -> None:
        """Ask for the player's matches (``fetch`` is the window's link; None: not connected)."""
        self.logs, self.failed, self.discipline = None, None, None
        if fetch is None:
            self.pending = None
            self.failed = "Not connected: connect to a server in the lobby first."
            return
        self.pending = fetch(self.player, MOST_MATCHES)

    def poll(self) -> bool:
        """Take the answer if it came (once a frame); True when something changed."""
        fut = self.pending
        if fut is None or not fut.done():
            return False
        self.pending = None
        exc = fut.exception()
        if exc is None:
            self.logs = tuple(fut.result())
        else:
            self.failed = f"Could not read the matches: {_reason(exc)}."
        return True

    @property
    def disciplines(self) -> tuple[str, ...]:
        """The disciplines the player has finished matches in, most played first."""
        counts = Counter(m.discipline for m in self.logs or ())

        def rank(d: str) -> tuple[int, int, str]:
            known = DISCIPLINES.index(d) if d in DISCIPLINES else len(DISCIPLINES)
            return (-counts[d], known, d)

        return tuple(sorted(counts, key=rank))

    @property
    def shown_discipline(self) -> str | None:
        if self.discipline is not None:
            return self.discipline
        return next(iter(self.disciplines), None)

    def stats(self) -> PlayerStats | None:
        """The numbers for the discipline shown (None before the matches are read, or when
        there are none)."""
        discipline = self.shown_discipline
        if self.logs is None or discipline is None:
            return None
        return player_stats(self.logs, discipline)

    def empty_text(self) -> str | None:
        """The sentence shown instead of the charts, or None when there are charts."""
        if self.failed is not None:
            return self.failed
        if self.loading:
            return f"Reading {self.player}'s matches from the server…"
        if self.logs is not None and not self.logs:
            return f"No finished matches for {self.player} yet."
        return None

    def summary(self) -> str:
        """One line of the main numbers, in words."""
        st = self.stats()
        if st is None:
            return ""
        line = f"{discipline_text(st.discipline)}: {_count(len(st.matches), 'match', 'es')}"
        if st.innings:
            line += (
                f", general average {st.average:.3f} ({_count(st.points, 'point')} in "
                f"{_count(st.innings, 'inning')}), high run {st.high_run}"
            )
        if st.median_think_s is not None:
            line += f", {st.median_think_s:.1f} s a stroke (median)"
        return line + "."

    def charts(self, boxes: Mapping[str, Rect]) -> dict[str, Chart]:
        """Each chart drawn for its box (``chart_boxes``), by name."""
        st = self.stats()
        if st is None:
            return {}
        return {
            name: CHARTS[name](st, round(box.width), round(box.height))
            for name, box in boxes.items()
        }


def _count(n: int, word: str, plural: str = "s") -> str:
    return f"{n} {word}{plural if n != 1 else ''}"


def _reason(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc)
    if isinstance(exc, OSError | TimeoutError) and not text:
        return "the server did not answer"
    return str(text or "the server did not answer").rstrip(".")


def chart_boxes(width: int, height: int) -> dict[str, Rect]:
    """Where each chart goes in a window of this size: the average over time and the
    patterns (the widest labels) side by side on top, runs, openings and time below."""
    left, right = MARGIN, width - MARGIN
    bottom, top = FOOTER, height - HEADER
    row = (top - bottom - GAP) / 2
    half = (right - left - GAP) / 2
    third = (right - left - 2 * GAP) / 3
    upper, lower = bottom + row + GAP, bottom
    return {
        "average": Rect(left, upper, half, row),
        "patterns": Rect(left + half + GAP, upper, half, row),
        "runs": Rect(left, lower, third, row),
        "openings": Rect(left + third + GAP, lower, third, row),
        "time": Rect(left + 2 * (third + GAP), lower, third, row),
    }


def discipline_text(discipline: str) -> str:
    """The HUD's words for a discipline, capitalised: "Three-cushion", "Balkline 47/2"."""

    return discipline_title(discipline).capitalize()
