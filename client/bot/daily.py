"""The daily problem's answer: the best strokes the planner finds from the day's position
(``shared/analysis/daily.py`` picks it), rated as the hints are (docs/analysis.md)."""

from __future__ import annotations

from client.bot.hints import Hint, hints
from client.bot.problem import Problem
from shared.analysis.daily import Position


def problem_of(position: Position) -> Problem:
    return Problem.of(position.discipline, position.table, position.balls, position.cue)


def answer(position: Position, budget_s: float = 10.0, seed: int = 0) -> list[Hint]:
    """The bot's best strokes from the position, best chance first (empty: it found none)."""
    return hints(problem_of(position), budget_s=budget_s, seed=seed)
