"""The lobby's desk for accounts, quick match, leaderboards and profiles (docs/accounts.md).

The lobby hands it ``register``, ``login``, ``queue``, ``unqueue``, ``leaderboard`` and
``profile``, tells it when a connection ends, and lets it run one pairing task. Everything it
decides is in the pure cores (``server/core/accounts.py``, ``server/core/matchmaking.py``,
``shared/ratings``); this module is the I/O: scrypt in a bounded thread pool, the SQLite rows,
the room a pairing opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from server.core.accounts import (
    AccountsConfig,
    AttemptLimiter,
    name_key,
    name_problem,
    password_problem,
)
from server.core.events import DomainEvent, MatchFinished
from server.core.limits import Attempts, LocalAttempts
from server.core.matchmaking import Matchmaker, Pairing, TeamPairing, Ticket, TicketQueue
from server.core.record import RoomSettings
from server.credentials import (
    check_password,
    hash_password,
    new_token,
    password_cost,
    token_hash,
)
from server.net.actor import Enter, now_ms
from server.net.hashing import Busy
from server.store.rows import leader_rows, profile_matches, standing_rows
from server.store.standings import Change, standing_key
from shared.protocol import PROTOCOL_VERSION, ErrorCode, error
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.enums import Discipline
from shared.ratings import DEFAULT_RATING

if TYPE_CHECKING:
    from server.net.gateway import Connection, GameServer

log = logging.getLogger("carom.accounts")

DeskMessage = ts.Register | ts.Login | ts.Queue | ts.Unqueue | ts.GetLeaderboard | ts.GetProfile

# A bot account's nominal strength by level (for offering a bot "of about the player's
# strength"): bots are never rated, so this is their only rating.
GUEST_MARK = " (guest)"
BOT_MARK = " (bot)"
BOT_RATING = {1: 1100.0, 2: 1300.0, 3: 1500.0, 4: 1700.0, 5: 1900.0}


def _dummy_hash() -> str:
    """Checked when a login names no account, so that an unknown name costs the same scrypt
    time as a wrong password (one answer, one timing): made at the cost new hashes use now."""
    return _dummy_hash_at(password_cost())


@functools.cache
def _dummy_hash_at(cost: int) -> str:
    return hash_password(secrets.token_hex(16), cost)


class StandingDesk:
    def __init__(self, server: GameServer, config: AccountsConfig) -> None:
        self.server = server
        self.config = config
        self.clock: Callable[[], int] = now_ms  # tests swap in a fake clock
        # One server's queue; a cluster node's desk gets the cluster's (server/cluster/queue.py).
        self.matchmaker: TicketQueue = Matchmaker(config)
        # Failed logins per name: in Redis on a cluster node (server/core/limits.py), so that a
        # guesser spreading over the nodes is counted once; per connection stays here.
        self.by_name: Attempts = LocalAttempts(
            config.name_failures, int(config.name_window_s * 1000)
        )
        self.by_conn = AttemptLimiter(config.conn_attempts, int(config.conn_window_s * 1000))
        self._task: asyncio.Task[None] | None = None
        server.events.subscribe(self._match_finished, MatchFinished)
        # For GET /metrics (metrics_text): what an operator watches of accounts and the queue.
        self.counts: Counter[str] = Counter()

    # Life cycle ----------------------------------------------------------------------------
    def start(self) -> None:
        store = self.server.store
        assert store is not None
        store.standings.period_s = self.config.rating_period_s
        store.standings.tau = self.config.tau
        self._task = asyncio.create_task(self._pair_loop(), name="quick-match")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def gone(self, client: Connection) -> None:
        """The connection ended: it leaves the queue, its attempt counter goes."""
        self.matchmaker.remove(client.conn)
        self.by_conn.clear(str(client.conn))

    async def shown_name(self, player_id: str, name: str) -> str:
        """The name others see after ``hello``: an account's own name whatever the hello said,
        and a guest using a registered name (or a look-alike) is marked as a guest."""
        store = self.server.store
        assert store is not None
        account = await store.run(store.standings.account, player_id)
        if account is not None:
            if account.name != name:
                await store.run(store.touch_player, player_id, account.name, now_ms())
            return _shown(account.name, account.bot)
        if await store.run(store.standings.account_by_key, name_key(name)) is not None:
            return name[: ts.NAME_MAX - len(GUEST_MARK)] + GUEST_MARK
        return name

    # Messages ------------------------------------------------------------------------------
    async def handle(self, client: Connection, msg: DeskMessage) -> None:
        if isinstance(msg, ts.Register | ts.Login):
            await self._account(client, msg)
        elif isinstance(msg, ts.Queue):
            await self._queue(client, msg)
        elif isinstance(msg, ts.Unqueue):
            self.matchmaker.remove(client.conn)
            self.server.reply(client, tc.Unqueued(re=msg.id))
        elif isinstance(msg, ts.GetLeaderboard):
            store = self.server.store
            assert store is not None
            key = standing_key(msg.discipline, msg.team_mode)  # R-TEAM-1: a team standing
            rows = await store.run(
                store.standings.leaderboard, key, msg.limit or 20, msg.offset or 0, self.clock()
            )
            self.server.reply(
                client,
                # a team standing's key (three_cushion_doubles) is a word older clients show as is
                tc.Leaderboard(discipline=Discipline(key), rows=leader_rows(rows), re=msg.id),
            )
        else:
            await self._profile(client, msg)

    async def _hash(self, fn: Callable[..., Any], *args: Any) -> Any:
        """scrypt (tens of ms, 16 MiB) in the server's bounded hashing pool (server/net/hashing.py,
        shared with room passwords); raises Busy when its queue is full."""
        return await self.server.hashing.run(fn, *args)

    async def _account(self, client: Connection, msg: ts.Register | ts.Login) -> None:
        server, store = self.server, self.server.store
        assert store is not None and client.player_id is not None
        now = self.clock()
        key = name_key(msg.name)
        wait = max(
            self.by_conn.wait_ms(str(client.conn), now), await self.by_name.wait_ms(key, now)
        )
        if wait > 0:
            self.counts["attempt_limited"] += 1
            server.reply(
                client,
                error(
                    ErrorCode.RATE_LIMITED,
                    f"Too many attempts; try again in {-(-wait // 1000)} seconds.",
                    msg.id,
                ),
            )
            return
        self.by_conn.count(str(client.conn), now)
        if client.room is not None:
            server.reply(
                client,
                error(ErrorCode.ALREADY_IN_ROOM, "Leave your room before logging in.", msg.id),
            )
            return
        try:
            if isinstance(msg, ts.Register):
                account = await self._register(client, msg, key, now)
            else:
                account = await self._login(client, msg, key, now)
        except Busy:
            server.reply(
                client,
                error(
                    ErrorCode.RATE_LIMITED,
                    "The server is busy checking passwords; try again in a moment.",
                    msg.id,
                ),
            )
            return
        if account is None:
            return
        player_id, name, account_bot = account
        token = new_token()
        await store.run(store.standings.add_token, player_id, token_hash(token), now)
        self.matchmaker.remove(client.conn)  # a ticket under the old identity is void
        client.player_id, client.name = player_id, _shown(name, account_bot)
        client.token = token  # a cluster relay greets the room's node as this identity
        server.reply(
            client,
            tc.Welcome(
                v=PROTOCOL_VERSION,
                player_id=player_id,
                token=token,
                server_time_ms=now_ms(),
                re=msg.id,
            ),
        )

    async def _register(
        self, client: Connection, msg: ts.Register, key: str, now: int
    ) -> tuple[str, str, bool] | None:
        server, store = self.server, self.server.store
        assert store is not None and client.player_id is not None
        problem = name_problem(msg.name)
        if problem is not None:
            server.reply(client, error(ErrorCode.BAD_NAME, problem, msg.id))
            return None
        problem = password_problem(msg.password, msg.name)
        if problem is not None:
            server.reply(client, error(ErrorCode.BAD_FIELD, problem, msg.id))
            return None
        if await store.run(store.standings.account, client.player_id) is not None:
            server.reply(
                client,
                error(
                    ErrorCode.ALREADY_REGISTERED,
                    "This identity already has an account; log in to use another.",
                    msg.id,
                ),
            )
            return None
        hashed = await self._hash(hash_password, msg.password)
        ok = await store.run(
            store.standings.register,
            client.player_id,
            msg.name,
            key,
            hashed,
            bool(msg.bot),
            now,
        )
        if not ok:
            server.reply(
                client, error(ErrorCode.NAME_TAKEN, "That name is taken; choose another.", msg.id)
            )
            return None
        self.counts["register"] += 1
        return client.player_id, msg.name, bool(msg.bot)

    async def _login(
        self, client: Connection, msg: ts.Login, key: str, now: int
    ) -> tuple[str, str, bool] | None:
        server, store = self.server, self.server.store
        assert store is not None
        account = await store.run(store.standings.account_by_key, key)
        stored = account.password_hash if account is not None else _dummy_hash()
        ok = await self._hash(check_password, msg.password, stored)
        if account is None or not ok:
            self.counts["login_failed"] += 1
            await self.by_name.count(key, self.clock())
            server.reply(client, error(ErrorCode.BAD_LOGIN, "Wrong name or password.", msg.id))
            return None
        await self.by_name.clear(key)
        self.counts["login"] += 1
        return account.player_id, account.name, account.bot

    async def _queue(self, client: Connection, msg: ts.Queue) -> None:
        server, store = self.server, self.server.store
        assert store is not None and client.player_id is not None
        if client.room is not None:
            server.reply(
                client,
                error(ErrorCode.ALREADY_IN_ROOM, "Leave your room before quick match.", msg.id),
            )
            return
        if server.draining:
            server.reply(
                client, error(ErrorCode.SHUTTING_DOWN, "The server is shutting down.", msg.id)
            )
            return
        now = self.clock()
        account = await store.run(store.standings.account, client.player_id)
        bot = account is not None and account.bot
        if bot:
            rating = BOT_RATING[msg.level or 3]
        else:
            found = (
                None
                if account is None
                else await store.run(store.standings.rating, client.player_id, msg.discipline, now)
            )
            rating = DEFAULT_RATING if found is None else found.rating
        team_mode = msg.team_mode or "singles"
        if team_mode != "singles" and (bot or not isinstance(self.matchmaker, Matchmaker)):
            # R-TEAM-1: four humans on one server make a team table (no bots; a cluster's
            # shared queue pairs two).
            server.reply(
                client,
                error(
                    ErrorCode.BAD_FIELD,
                    "Quick match for doubles is for players on one server, not bots.",
                    msg.id,
                ),
            )
            return
        ticket = Ticket(
            client.conn,
            client.player_id,
            msg.discipline,
            msg.distance,
            rating,
            bot,
            now,
            team_mode,
        )
        if not self.matchmaker.add(ticket):
            server.reply(
                client, error(ErrorCode.QUEUE_FULL, "Quick match is full; try later.", msg.id)
            )
            return
        server.reply(
            client,
            tc.Queued(
                discipline=msg.discipline, distance=msg.distance, rating=round(rating, 1), re=msg.id
            ),
        )

    async def _profile(self, client: Connection, msg: ts.GetProfile) -> None:
        server, store = self.server, self.server.store
        assert store is not None
        now = self.clock()
        known_as = await store.run(store.standings.player_name, msg.player_id)
        if known_as is None:
            server.reply(client, error(ErrorCode.NO_SUCH_PLAYER, "No such player.", msg.id))
            return
        account = await store.run(store.standings.account, msg.player_id)
        standings = await store.run(store.standings.standings_of, msg.player_id, now)
        found = await store.run(store.list_matches, 20, msg.player_id, None, client.player_id)
        changes = await store.run(
            store.standings.changes_of, [m["match_id"] for m in found], msg.player_id
        )
        matches = [_match_line(m, msg.player_id, changes.get(m["match_id"])) for m in found]
        server.reply(
            client,
            tc.Profile(
                player_id=msg.player_id,
                name=account.name if account is not None else known_as,
                registered=account is not None,
                bot=account is not None and account.bot,
                standings=standing_rows(standings),
                matches=profile_matches(matches),
                re=msg.id,
            ),
        )

    # Pairing -------------------------------------------------------------------------------
    async def _pair_loop(self) -> None:
        while True:
            await asyncio.sleep(self.config.pair_every_s)
            try:
                await self.pair_now()
            except Exception:
                log.exception("quick match pairing failed")

    async def pair_now(self) -> int:
        """One pairing round: open a room for every pair that fits now. Returns how many."""
        server = self.server
        opened = 0
        for found in self.matchmaker.pair(self.clock()):
            if isinstance(found, TeamPairing):
                opened += await self._open_table(found)
                continue
            pairing: Pairing = found
            a = server.clients.get(pairing.a.key)  # type: ignore[call-overload]
            b = server.clients.get(pairing.b.key)  # type: ignore[call-overload]
            ready = [
                c
                for c, t in ((a, pairing.a), (b, pairing.b))
                if c is not None and not c.closing and c.room is None and c.player_id == t.player_id
            ]
            if len(ready) < 2 or server.draining or len(server.rooms) >= server.config.max_rooms:
                for c, t in ((a, pairing.a), (b, pairing.b)):  # the other one waits on
                    if c is not None and c in ready:
                        self.matchmaker.add(t)
                continue
            if await self.open_room(ready[0], ready[1], pairing.a):
                opened += 1
                self.counts["paired_bot" if pairing.with_bot else "paired"] += 1
            else:  # the room could not be saved: both wait on, nothing is lost
                self.matchmaker.add(pairing.a)
                self.matchmaker.add(pairing.b)
        return opened

    async def _open_table(self, table: TeamPairing) -> int:
        """R-TEAM-1: a team room for four tickets, seated A1, B1, A2, B2 as the matchmaker
        split them; 1 when it opened. A player who went meanwhile sends the others back to
        the queue."""
        server = self.server
        clients = [server.clients.get(t.key) for t in table.seats]  # type: ignore[call-overload]
        ready = [
            c
            for c, t in zip(clients, table.seats, strict=True)
            if c is not None and not c.closing and c.room is None and c.player_id == t.player_id
        ]
        if len(ready) < 4 or server.draining or len(server.rooms) >= server.config.max_rooms:
            for c, t in zip(clients, table.seats, strict=True):
                if c is not None and c in ready:
                    self.matchmaker.add(t)
            return 0
        if await self.open_room(ready[0], ready[1], table.a1, more=ready[2:]) is None:
            for t in table.seats:
                self.matchmaker.add(t)
            return 0
        self.counts["paired"] += 1
        return 1

    async def open_room(
        self,
        a: Connection,
        b: Connection | None,
        ticket: Ticket,
        more: list[Connection] | None = None,
    ) -> str | None:
        """A room exactly as if ``a`` had created it and both had joined by hand; its id, or
        None when it could not be saved. (``b`` None: on a cluster, the other player is on
        another node, which joins them through a relay: server/cluster/queue.py.)"""
        server = self.server
        chosen: dict[str, str | int] = (
            {} if ticket.distance is None else {"distance": ticket.distance}
        )
        if ticket.team_mode != "singles":
            chosen["team_mode"] = ticket.team_mode  # R-TEAM-1

        async def lease_first(room_id: str) -> None:  # on a cluster, the other node finds it
            await server.locator.claim_quick(room_id, a.player_id)

        try:
            actor = await server.open_room(
                RoomSettings(ticket.discipline, chosen), a.player_id, claim=lease_first
            )
        except (sqlite3.Error, OSError):  # OSError: PostgreSQL unreachable (server/store/sql.py)
            log.exception("could not save a quick-match room")
            return None
        assert not isinstance(actor, str)  # a quick match's claim refuses nothing
        room = actor.room
        for client in [a, *([] if b is None else [b]), *(more or [])]:
            client.room = actor
            token = new_token()
            actor.post(
                Enter(client.member(), ts.Join(room_id=room.room_id), token, token_hash(token))
            )
        return room.room_id

    def _match_finished(self, event: DomainEvent) -> None:
        """A result is committed, with its rating changes in the same transaction
        (Store.finish_match): tell each rated player theirs at once."""
        store = self.server.store
        if store is not None:
            self.deliver_changes(store.standings.take_changes())

    def deliver_changes(self, changes: list[Change]) -> None:
        """Tell each rated player their own change (after the result is committed)."""
        self.counts["rated_player_results"] += len(changes)
        for ch in changes:
            msg = tc.Rated(
                match_id=ch.match_id,
                discipline=Discipline(ch.discipline),
                before=round(ch.before, 1),
                after=round(ch.after, 1),
                deviation=round(ch.deviation, 1),
            )
            for client in list(self.server.clients.values()):
                if client.player_id == ch.player_id:
                    self.server.reply(client, msg)

    def metrics_text(self) -> str:
        """Prometheus lines appended to GET /metrics."""
        c = self.counts
        return "\n".join(
            [
                "# HELP carom_quick_match_waiting Players waiting in quick match.",
                "# TYPE carom_quick_match_waiting gauge",
                f"carom_quick_match_waiting {len(self.matchmaker)}",
                "# HELP carom_quick_match_pairs_total Quick matches opened (with_bot: a bot).",
                "# TYPE carom_quick_match_pairs_total counter",
                f'carom_quick_match_pairs_total{{with_bot="false"}} {c["paired"]}',
                f'carom_quick_match_pairs_total{{with_bot="true"}} {c["paired_bot"]}',
                "# HELP carom_logins_total Logins by result (limited: by the attempt limit).",
                "# TYPE carom_logins_total counter",
                f'carom_logins_total{{result="ok"}} {c["login"]}',
                f'carom_logins_total{{result="failed"}} {c["login_failed"]}',
                f'carom_logins_total{{result="limited"}} {c["attempt_limited"]}',
                "# TYPE carom_registrations_total counter",
                f"carom_registrations_total {c['register']}",
                "# HELP carom_rated_results_total Players' rating changes from rated matches.",
                "# TYPE carom_rated_results_total counter",
                f"carom_rated_results_total {c['rated_player_results']}",
                "",
            ]
        )


def _shown(name: str, bot: bool) -> str:
    """Bots are marked as bots wherever their name appears (rooms, calls, chat)."""
    if not bot or "bot" in name.casefold():
        return name
    return name[: ts.NAME_MAX - len(BOT_MARK)] + BOT_MARK


def _match_line(
    m: dict[str, Any], player_id: str, change: tuple[float, float] | None
) -> dict[str, Any]:
    """One line of a profile's match list: who, the score, the averages, the replay's id."""
    seat = next((i for i, p in enumerate(m["players"]) if p.get("player_id") == player_id), 0)
    sheet = m.get("scoresheet") or {}
    lines = sheet.get("match") or [{}, {}]
    mine = lines[seat] if seat < len(lines) else {}
    theirs = lines[1 - seat] if 1 - seat < len(lines) else {}
    opponent = m["players"][1 - seat] if len(m["players"]) > 1 else None
    winner = m.get("winner")
    out: dict[str, Any] = {
        "match_id": m["match_id"],  # get_replay takes it
        "discipline": m["discipline"],
        "finished_ms": m["finished_ms"],
        "opponent": opponent,
        "result": "draw" if winner is None else ("win" if winner == seat else "loss"),
        "reason": m["reason"],
        "score": [mine.get("points", 0), theirs.get("points", 0)],
        "innings": mine.get("innings", 0),
        "average": mine.get("average", 0.0),
        "high_run": mine.get("high_run", 0),
    }
    if change is not None:
        out["rating_before"], out["rating_after"] = round(change[0], 1), round(change[1], 1)
    return out
