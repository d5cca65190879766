"""The tournament runner: the I/O shell around the pure event (server/core/tournament.py).

One asyncio task per server (:meth:`TournamentDesk.start`) wakes every ``tick_s`` (or at once
when a room reports) and, for each event this process runs: draws it at its start time, opens
each round's tables through the gateway's one ``open_room``, seats the players who are connected
(``joined`` arrives unasked, as in quick match; a player who connects later is seated as soon as
they are free, with a ``tournament_table`` telling them where and against whom), applies the
no-show time, takes the results the rooms publish (``MatchFinished`` on the event bus; the
``matches`` rows too, so a result that came while nobody ran the event is not lost), stores
every change and sends a fresh ``tournament`` to its watchers.

Time comes from ``clock`` (server milliseconds; tests pass a fake one). Which process runs an
event is a lease in its row (``TournamentBook.claim``), renewed every ``claim_every_s``: alone,
the server's runner is ``local`` and takes its events back at once after a restart; in a
cluster each node runs under its own name and takes over an event whose runner's lease ran out.

The wire requests (create, register, list, get, watch, cancel) are answered here too: the
lobby core routes them (``Route.TOURNAMENT``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from server.core.events import DomainEvent, MatchFinished, MatchStarted
from server.core.record import RoomSettings
from server.core.room import ConnId
from server.core.tournament import (
    DEFAULT_RATING,
    CloseTable,
    Format,
    MatchState,
    OpenTable,
    Phase,
    Score,
    TMatch,
    Tournament,
    TournamentError,
    TournamentOptions,
)
from server.credentials import new_token, token_hash
from server.net.actor import Close, Enter, Inbound, now_ms
from server.net.web import tournament_page
from server.net.web.pages import ROOM_ID
from server.store.tournaments import LOCAL_RUNNER
from shared.protocol import ErrorCode, error
from shared.protocol import to_server as ts
from shared.protocol import tournament as tw
from shared.protocol.enums import Discipline, EndReason

if TYPE_CHECKING:
    from websockets.http11 import Request, Response

    from server.net.gateway import Connection, GameServer

log = logging.getLogger("carom.tournaments")

TournamentRequest = (
    tw.TournamentCreate
    | tw.TournamentRegister
    | tw.TournamentUnregister
    | tw.TournamentCancel
    | tw.ListTournaments
    | tw.GetTournament
    | tw.WatchTournament
    | tw.UnwatchTournament
)


class TournamentDesk:
    def __init__(
        self,
        server: GameServer,
        clock: Callable[[], int] = now_ms,
        runner: str = LOCAL_RUNNER,
        lease_s: float = 30.0,
        tick_s: float = 0.2,
        claim_every_s: float = 2.0,
    ) -> None:
        self.server = server
        self.clock = clock  # tests swap in a fake clock
        self.runner = runner
        self.lease_ms = int(lease_s * 1000)
        self.tick_s = tick_s
        self.claim_every_ms = int(claim_every_s * 1000)
        self.held: dict[str, Tournament] = {}  # the events this process runs
        self.tables: dict[str, tuple[str, tuple[int, int]]] = {}  # room_id -> (event, match)
        self.watchers: dict[str, set[ConnId]] = {}
        self.told: set[tuple[str, int, int, ConnId]] = set()  # tournament_table sent
        self.saved: dict[str, int] = {}  # event -> version last stored and sent
        self.wake = asyncio.Event()
        self.counts: Counter[str] = Counter()
        self.ticks = 0  # runs of tick() (a test awaits a few to see that nothing happened)
        self._claimed_ms = -(1 << 62)
        self._task: asyncio.Task[None] | None = None
        server.events.subscribe(self._event, None)

    # Life cycle -----------------------------------------------------------------------------
    def start(self) -> None:
        cluster = self.server.config.cluster
        if cluster is not None and self.runner == LOCAL_RUNNER:
            # Each node runs the events it holds the lease of, renewed as often as its rooms'
            # and three times as long: a killed node's events move about as fast as its rooms.
            self.runner = cluster.node
            self.claim_every_ms = cluster.lease_ms // 3
            self.lease_ms = cluster.lease_ms * 3
        self._task = asyncio.create_task(self._loop(), name="tournaments")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        store = self.server.store
        if store is not None and self.runner != LOCAL_RUNNER:
            for tid in self.held:  # another node may take them at once
                with contextlib.suppress(sqlite3.Error, OSError):
                    store.tournaments.release(tid, self.runner)

    def gone(self, client: Connection) -> None:
        for conns in self.watchers.values():
            conns.discard(client.conn)

    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
            except (sqlite3.Error, OSError):
                log.exception("the tournament runner could not reach the store; trying again")
            except Exception:
                log.exception("the tournament runner failed; trying again")
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.tick_s)

    # The runner -----------------------------------------------------------------------------
    async def tick(self) -> None:
        """Everything due now, for every event this process runs (public: tests call it)."""
        self.ticks += 1
        now = self.clock()
        if now - self._claimed_ms >= self.claim_every_ms:
            self._claimed_ms = now
            self._claim(now)
        for t in list(self.held.values()):
            await self._step(t, now)

    def _claim(self, now: int) -> None:
        """Renew the leases held, take the events nobody runs, and read the results that came
        while a match's room reported to no one (a restart, another node)."""
        store = self.server.store
        assert store is not None
        book = store.tournaments
        for tid in book.to_run():
            if not book.claim(tid, self.runner, now, self.lease_ms):
                self._drop(tid)  # another runner has it (our lease ran out)
                continue
            if tid not in self.held:
                t = book.load(tid)
                if t is None:
                    continue
                self.held[tid] = t
                self.saved[tid] = t.version
                log.info("running tournament %s (%s)", tid, t.options.name)
            t = self.held[tid]
            for m in t.matches():
                if m.room_id is not None:
                    self.tables[m.room_id] = (tid, m.key)
                if m.state is MatchState.OPEN and m.match_id is not None:
                    self._result_from_store(t, m)

    def _drop(self, tid: str) -> None:
        self.held.pop(tid, None)
        self.saved.pop(tid, None)
        for room_id in [r for r, (t, _) in self.tables.items() if t == tid]:
            del self.tables[room_id]
        self.told = {k for k in self.told if k[0] != tid}

    async def _step(self, t: Tournament, now: int) -> None:
        store = self.server.store
        assert store is not None
        ratings: dict[str, float] = {}
        if t.phase is Phase.REGISTRATION:
            if now < t.options.starts_ms:
                return
            # Registrations went to the store (any node): the draw reads them there.
            fresh = store.tournaments.load(t.tournament_id)
            if fresh is None:
                return
            t = self.held[t.tournament_id] = fresh
            for e in t.entrants:
                r = store.standings.rating(e.player_id, t.options.discipline, now)
                ratings[e.player_id] = DEFAULT_RATING if r is None else r.rating
        self._note_seats(t)
        steps = t.due(now, ratings)
        for step in steps:
            if isinstance(step, OpenTable):
                await self._open_table(t, step, now)
            elif isinstance(step, CloseTable):
                self._close_table(step.room_id)
        if t.phase is Phase.RUNNING:
            self._seat_players(t)
        self._save(t, now)
        if t.phase in (Phase.FINISHED, Phase.CANCELLED):
            log.info("tournament %s is %s", t.tournament_id, t.phase.value)
            store.tournaments.release(t.tournament_id, self.runner)
            self._drop(t.tournament_id)

    def _save(self, t: Tournament, now: int) -> None:
        if t.version == self.saved.get(t.tournament_id) and not t.changed:
            return
        store = self.server.store
        assert store is not None
        store.tournaments.save(t, now)
        self.saved[t.tournament_id] = t.version
        self._tell_watchers(t)

    async def _open_table(self, t: Tournament, step: OpenTable, now: int) -> None:
        server = self.server
        o = t.options
        chosen: dict[str, int] = {"distance": o.distance}
        if o.innings_limit is not None:
            chosen["innings_limit"] = o.innings_limit

        async def lease_first(room_id: str) -> None:  # on a cluster, its lease before the row
            await server.locator.claim_quick(room_id, None)

        if server.draining:
            return
        actor = await server.open_room(
            RoomSettings(o.discipline, chosen),
            None,  # no creator: an event's tables count against nobody's room cap
            claim=lease_first,
        )
        assert not isinstance(actor, str)  # this claim refuses nothing
        actor.room.reserved = step.players
        t.table_opened(step.key, actor.room.room_id, now)
        self.tables[actor.room.room_id] = (t.tournament_id, step.key)
        self.counts["tables_opened"] += 1

    def _close_table(self, room_id: str) -> None:
        """A table decided without play: its seated player is taken out, the room closes."""
        actor = self.server.rooms.get(room_id)
        if actor is None:
            return
        for holder in actor.room.seats:
            client = None if holder is None or holder.conn is None else self._client(holder.conn)
            if client is not None:
                actor.post(Inbound(client.member(), ts.Leave()))
        actor.post(Close())

    def _note_seats(self, t: Tournament) -> None:
        """Who has taken their seat at the open tables (the no-show check reads it); a table
        restored after a restart is kept for its players again."""
        for m in t.current():
            if m.state is not MatchState.OPEN or m.room_id is None:
                continue
            actor = self.server.rooms.get(m.room_id)
            if actor is None:
                continue
            actor.room.reserved = m.players
            if m.match_id is None:
                for holder in actor.room.seats:
                    if holder is not None:
                        t.seated(m.key, holder.player_id)

    def _seat_players(self, t: Tournament) -> None:
        by_player: dict[str, Connection] = {}
        for client in self.server.clients.values():
            if client.player_id is not None and not client.closing:
                mine = by_player.get(client.player_id)
                if mine is None or (mine.room is not None and client.room is None):
                    by_player[client.player_id] = client
        for m in t.current():
            if m.state is not MatchState.OPEN or m.match_id is not None or m.room_id is None:
                continue
            actor = self.server.rooms.get(m.room_id)
            if actor is None:
                continue
            for player in m.players:
                found = by_player.get(player)
                if found is None or player in m.seated:
                    continue
                client = found
                self._tell_table(t, m, client)
                if client.room is actor:
                    continue  # seated a moment ago: the room has it queued
                if client.room is not None:
                    done = client.room.room
                    if done.reserved and done.state.phase.value == "over":
                        # Still at the table of their last event match: out of it, then here.
                        client.room.post(Inbound(client.member(), ts.Leave()))
                    continue
                if client.relay is not None or client.hub is not None:
                    continue  # in a room of another node: told, and seated once back
                client.room = actor
                token = new_token()
                actor.post(
                    Enter(client.member(), ts.Join(room_id=m.room_id), token, token_hash(token))
                )
                self.counts["seated"] += 1

    def _tell_table(self, t: Tournament, m: TMatch, client: Connection) -> None:
        key = (t.tournament_id, m.round, m.index, client.conn)
        if key in self.told or m.room_id is None:
            return
        self.told.add(key)
        other = next((p for p in m.players if p != client.player_id), None)
        entrant = t.entrant(other) if other is not None else None
        self.server.reply(
            client,
            tw.TournamentTable(
                tournament_id=t.tournament_id,
                round=m.round + 1,
                room_id=m.room_id,
                opponent=entrant.name if entrant is not None else "",
                no_show_ms=(m.opened_ms or 0) + t.options.no_show_s * 1000,
            ),
        )

    def _client(self, conn: ConnId) -> Connection | None:
        return self.server.clients.get(conn)

    # What the rooms report --------------------------------------------------------------------
    def _event(self, event: DomainEvent) -> None:
        if not isinstance(event, MatchStarted | MatchFinished):
            return
        found = self.tables.get(event.room_id)
        if found is None:
            return
        t = self.held.get(found[0])
        if t is None:
            return
        m = t.match(found[1])
        if isinstance(event, MatchStarted):
            t.started(m.key, event.match_id)
        elif event.match_id is not None and event.match_id == m.match_id:
            self._finish(t, m, event.players, event.winner, event.reason)
        self.wake.set()

    def _result_from_store(self, t: Tournament, m: TMatch) -> None:
        store = self.server.store
        assert store is not None and m.match_id is not None
        row = store.match(m.match_id)
        if row is None or row["finished_ms"] is None:
            return
        players = tuple(str(p.get("player_id")) for p in row["players"])
        self._finish(t, m, players, row["winner"], str(row["reason"]))

    def _finish(
        self,
        t: Tournament,
        m: TMatch,
        players: tuple[str, ...],
        winner_seat: int | None,
        reason: str,
    ) -> None:
        store = self.server.store
        assert store is not None and m.match_id is not None
        row = store.match(m.match_id)
        lines = ((row or {}).get("scoresheet") or {}).get("match") or []
        scores = {}
        for seat, player in enumerate(players):
            line = lines[seat] if seat < len(lines) and isinstance(lines[seat], dict) else {}
            scores[player] = Score(
                int(line.get("points") or 0),
                int(line.get("innings") or 0),
                int(line.get("high_run") or 0),
            )
        winner = None if winner_seat is None else players[winner_seat]
        t.finished(m.key, winner, reason, scores)
        self.counts["results"] += 1

    # Requests ---------------------------------------------------------------------------------
    async def handle(self, client: Connection, msg: TournamentRequest) -> None:
        try:
            await self._handle(client, msg)
        except TournamentError as exc:
            self.server.reply(client, error(ErrorCode(exc.code), exc.message, msg.id))

    async def _handle(self, client: Connection, msg: TournamentRequest) -> None:
        store = self.server.store
        assert store is not None and client.player_id is not None
        book = store.tournaments
        now = self.clock()
        if isinstance(msg, tw.ListTournaments):
            rows = book.listing()
            self.server.reply(
                client,
                tw.Tournaments(
                    tournaments=tuple(
                        tw.TournamentSummary(
                            tournament_id=r["tournament_id"],
                            options=_options_view(r["options"]),
                            state=tw.TournamentState(r["state"]),
                            players=r["players"],
                            winner=None
                            if r["winner"] is None
                            else store.standings.player_name(r["winner"]),
                        )
                        for r in rows
                    ),
                    re=msg.id,
                ),
            )
            return
        if isinstance(msg, tw.TournamentCreate):
            await self._create(client, msg, now)
            return
        if isinstance(msg, tw.TournamentRegister | tw.TournamentUnregister):
            account = store.standings.account(client.player_id)
            if account is None:
                raise TournamentError(
                    ErrorCode.ACCOUNT_NEEDED.value,
                    "Log in (or register a name) to play in tournaments.",
                )
            if isinstance(msg, tw.TournamentRegister):
                t = book.register(msg.tournament_id, client.player_id, account.name, now)
            else:
                t = book.unregister(msg.tournament_id, client.player_id, now)
            if t.tournament_id in self.held and self.held[t.tournament_id].phase is (
                Phase.REGISTRATION
            ):
                self.held[t.tournament_id] = t
            self.server.reply(
                client,
                tw.TournamentRegistered(
                    tournament_id=t.tournament_id,
                    registered=isinstance(msg, tw.TournamentRegister),
                    re=msg.id,
                ),
            )
            self._tell_watchers(t)
            return
        if isinstance(msg, tw.UnwatchTournament):
            self.watchers.get(msg.tournament_id, set()).discard(client.conn)
            self.server.reply(client, self._info(self._current(msg.tournament_id), msg.id))
            return
        if isinstance(msg, tw.TournamentCancel):
            await self._cancel(client, msg, now)
            return
        t = self._current(msg.tournament_id)
        if isinstance(msg, tw.WatchTournament):
            self.watchers.setdefault(t.tournament_id, set()).add(client.conn)
        self.server.reply(client, self._info(t, msg.id))

    def _current(self, tournament_id: str) -> Tournament:
        held = self.held.get(tournament_id)
        if held is not None and held.phase is not Phase.REGISTRATION:
            return held
        store = self.server.store
        assert store is not None
        t = store.tournaments.load(tournament_id)
        if t is None:
            raise TournamentError(ErrorCode.NO_SUCH_TOURNAMENT.value, "No such tournament.")
        return t

    async def _create(self, client: Connection, msg: tw.TournamentCreate, now: int) -> None:
        store = self.server.store
        assert store is not None and client.player_id is not None
        if store.standings.account(client.player_id) is None or not (
            store.tournaments.is_organizer(client.player_id)
        ):
            raise TournamentError(
                ErrorCode.NOT_ORGANIZER.value,
                "Only an organizer can create tournaments; the server's operator grants that.",
            )
        chosen: dict[str, int] = {"distance": msg.distance}
        if msg.innings_limit is not None:
            chosen["innings_limit"] = msg.innings_limit
        try:
            RoomSettings(msg.discipline.value, chosen)  # the room options' own checks
        except ValueError as exc:
            raise TournamentError(ErrorCode.BAD_OPTIONS.value, str(exc)) from None
        options = TournamentOptions(
            name=msg.name,
            discipline=msg.discipline.value,
            distance=msg.distance,
            format=Format(msg.format.value),
            capacity=msg.capacity,
            registration_closes_ms=msg.registration_closes_ms,
            starts_ms=msg.starts_ms,
            no_show_s=msg.no_show_s if msg.no_show_s is not None else 300,
            innings_limit=msg.innings_limit,
            rounds=msg.rounds,
            groups=msg.groups,
        )
        problem = options.problem(now)
        if problem is not None:
            raise TournamentError(ErrorCode.BAD_OPTIONS.value, problem)
        t = store.tournaments.create(client.player_id, options, now)
        self._claimed_ms = -(1 << 62)  # pick it up at the next tick
        self.wake.set()
        self.server.reply(client, tw.TournamentCreated(tournament_id=t.tournament_id, re=msg.id))

    async def _cancel(self, client: Connection, msg: tw.TournamentCancel, now: int) -> None:
        store = self.server.store
        assert store is not None
        t = self._current(msg.tournament_id)
        if t.organizer != client.player_id or not store.tournaments.is_organizer(t.organizer):
            raise TournamentError(
                ErrorCode.NOT_ORGANIZER.value, "Only the tournament's organizer can cancel it."
            )
        if t.tournament_id not in self.held and not store.tournaments.claim(
            t.tournament_id, self.runner, now, self.lease_ms
        ):
            raise TournamentError(
                ErrorCode.UNAVAILABLE.value,
                "Another server runs this tournament right now; try again in a moment.",
            )
        t = self.held.get(t.tournament_id) or t
        if t.phase is Phase.REGISTRATION:
            t = self._current(t.tournament_id)  # with every registration
        for step in t.cancel(now):
            if isinstance(step, CloseTable):
                self._close_table(step.room_id)
        store.tournaments.save(t, now)
        store.tournaments.release(t.tournament_id, self.runner)
        self._drop(t.tournament_id)
        self.server.reply(client, self._info(t, msg.id))
        self._tell_watchers(t)

    # Views ------------------------------------------------------------------------------------
    def _tell_watchers(self, t: Tournament) -> None:
        conns = self.watchers.get(t.tournament_id)
        if not conns:
            return
        info = self._info(t, None)
        for conn in list(conns):
            client = self._client(conn)
            if client is None:
                conns.discard(conn)
            else:
                self.server.reply(client, info)

    def _info(self, t: Tournament, re: int | None) -> tw.TournamentInfo:
        store = self.server.store
        assert store is not None
        names = {e.player_id: e.name for e in t.entrants}
        return tw.TournamentInfo(
            tournament_id=t.tournament_id,
            options=_options_view(t.options),
            organizer=store.standings.player_name(t.organizer) or "",
            state=tw.TournamentState(t.phase.value),
            version=t.version,
            players=tuple(
                tw.TournamentPlayer(
                    player_id=e.player_id,
                    name=e.name,
                    seed=e.seed,
                    rating=None if e.seed is None else round(e.rating, 1),
                )
                for e in t.entrants
            ),
            rounds=tuple(
                tw.TournamentRound(round=i + 1, matches=tuple(_match_view(m) for m in r))
                for i, r in enumerate(t.rounds)
            ),
            standings=tuple(
                tw.StandingsTable(
                    group=gi if t.options.format is Format.ROUND_ROBIN else None,
                    lines=tuple(
                        tw.TableLine(
                            player_id=ln.player_id,
                            name=names.get(ln.player_id, ""),
                            played=ln.played,
                            won=ln.won,
                            drawn=ln.drawn,
                            lost=ln.lost,
                            match_points=ln.match_points,
                            points=ln.points,
                            innings=ln.innings,
                            average=round(ln.average, 3),
                            high_run=ln.high_run,
                        )
                        for ln in lines
                    ),
                )
                for gi, lines in enumerate(t.standings())
            ),
            winner=t.winner,
            re=re,
        )

    def page(self, request: Request, tournament_id: str) -> Response:
        """``/tournament/<id>``: the bracket or table as a page (server/net/web)."""
        web = self.server.web
        if not ROOM_ID.match(tournament_id):
            return web.not_found()
        try:
            t = self._current(tournament_id)
        except TournamentError:
            return web.not_found()
        body = tournament_page.render(self._info(t, None), web.by_name.get("style.css", ""))
        over = t.phase in (Phase.FINISHED, Phase.CANCELLED)
        return web.document(request, body, None if over else tournament_page.REFRESH_S)

    def metrics_text(self) -> str:
        return (
            "".join(
                f"carom_tournament_{name}_total {value}\n"
                for name, value in sorted(self.counts.items())
            )
            + f"carom_tournaments_running {len(self.held)}\n"
        )


def _options_view(o: TournamentOptions) -> tw.TournamentOptionsView:
    return tw.TournamentOptionsView(
        name=o.name,
        discipline=Discipline(o.discipline),
        distance=o.distance,
        format=tw.TournamentFormat(o.format.value),
        capacity=o.capacity,
        registration_closes_ms=o.registration_closes_ms,
        starts_ms=o.starts_ms,
        no_show_s=o.no_show_s,
        innings_limit=o.innings_limit,
        rounds=o.rounds,
        groups=o.groups,
    )


def _match_view(m: TMatch) -> tw.TournamentMatch:
    scores = (m.score_a, m.score_b)[: len(m.players)]
    return tw.TournamentMatch(
        players=m.players,
        state=tw.TableState(m.state.value),
        group=m.group,
        room_id=m.room_id,
        match_id=m.match_id,
        score=None
        if all(s is None for s in scores)
        else tuple(
            None
            if s is None
            else tw.TournamentScore(points=s.points, innings=s.innings, high_run=s.high_run)
            for s in scores
        ),
        winner=m.winner,
        reason=None if m.reason is None else EndReason(m.reason),
    )
