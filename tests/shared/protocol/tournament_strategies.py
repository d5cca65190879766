"""Hypothesis strategies for the tournament messages (shared/protocol/tournament.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from shared.protocol import tournament as tw
from shared.protocol.base import ClientMessage, ServerMessage
from shared.protocol.enums import Discipline
from tests.shared.protocol.view_strategies import FIELD, view, views_of

FIELD[(tw.TournamentOptionsView, "format")] = st.sampled_from(list(tw.TournamentFormat))
FIELD[(tw.TournamentSummary, "state")] = st.sampled_from(list(tw.TournamentState))
FIELD[(tw.TournamentMatch, "state")] = st.sampled_from(list(tw.TableState))

ids = st.none() | st.integers(-(2**53) + 1, 2**53 - 1)
tids = st.text(min_size=1, max_size=32)
times = st.integers(0, 2**53 - 1)
names = st.text(st.characters(min_codepoint=65, max_codepoint=122), min_size=1, max_size=60)

TOURNAMENT_CLIENT: dict[type[ClientMessage], st.SearchStrategy[Any]] = {
    tw.TournamentCreate: st.builds(
        tw.TournamentCreate,
        name=names,
        discipline=st.sampled_from([Discipline.THREE_CUSHION, Discipline.STRAIGHT_RAIL]),
        distance=st.integers(1, 10_000),
        format=st.sampled_from(list(tw.TournamentFormat)),
        capacity=st.integers(2, 256),
        registration_closes_ms=times,
        starts_ms=times,
        no_show_s=st.none() | st.integers(1, 3600),
        innings_limit=st.none() | st.integers(1, 10_000),
        rounds=st.none() | st.integers(1, 20),
        groups=st.none() | st.integers(1, 32),
        id=ids,
    ),
    **{
        cls: st.builds(cls, tournament_id=tids, id=ids)
        for cls in (
            tw.TournamentRegister,
            tw.TournamentUnregister,
            tw.TournamentCancel,
            tw.GetTournament,
            tw.WatchTournament,
            tw.UnwatchTournament,
        )
    },
    tw.ListTournaments: st.builds(tw.ListTournaments, id=ids),
}

TOURNAMENT_SERVER: dict[type[ServerMessage], st.SearchStrategy[Any]] = {
    tw.TournamentCreated: st.builds(tw.TournamentCreated, tournament_id=tids, re=ids),
    tw.TournamentRegistered: st.builds(
        tw.TournamentRegistered, tournament_id=tids, registered=st.booleans(), re=ids
    ),
    tw.Tournaments: st.builds(tw.Tournaments, tournaments=views_of(tw.TournamentSummary), re=ids),
    tw.TournamentInfo: st.builds(
        tw.TournamentInfo,
        tournament_id=tids,
        options=view(tw.TournamentOptionsView),
        organizer=names,
        state=st.sampled_from(list(tw.TournamentState)),
        version=st.integers(0, 2**40),
        players=views_of(tw.TournamentPlayer),
        rounds=views_of(tw.TournamentRound),
        standings=views_of(tw.StandingsTable),
        winner=st.none() | tids,
        re=ids,
    ),
    tw.TournamentTable: st.builds(
        tw.TournamentTable,
        tournament_id=tids,
        round=st.integers(1, 20),
        room_id=tids,
        opponent=names,
        no_show_ms=times,
    ),
}
