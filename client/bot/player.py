"""A bot player: drives a :class:`~client.session.Session` through whole matches.

The player watches the tracked state after every event and acts when the match waits for it:
its lag stroke (R-LAG-3), the break choice when it won the lag (R-LAG-7), and its strokes in
play, within the shot clock (R-CLOCK-1). Thinking runs in an executor (a process by default),
so the connection keeps answering while the search burns CPU. A stroke is sent only once the
previous stroke's balls are at rest on the server's clock (R-PLAY-4).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, cast

from client.bot.levels import Level, level
from client.bot.plan import Plan, plan_choice_of_break, plan_lag, plan_stroke
from client.bot.problem import LagProblem, problem_from
from client.session import ConnectionLost, Link, Session
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.enums import Phase
from shared.protocol.errors import ErrorCode
from shared.table import BALLS, BallName

log = logging.getLogger(__name__)

CLOCK_MARGIN_S = 3.0  # seconds kept in hand at the end of the shot clock (network, scheduling)
REST_MARGIN_MS = 60  # ms after the server's rest time before sending a stroke


class BotPlayer:
    """Plays the seat its session holds. ``await play_match()`` returns the ``game_over`` map."""

    def __init__(
        self,
        session: Session,
        level_number: int,
        *,
        executor: Executor | None = None,
        seed: int | None = None,
        think_s: float | None = None,
        tempo: float = 0.0,
        say: Callable[[str], None] | None = None,
        personality: str = "attacking",
        explain: bool = False,
    ) -> None:
        self.session = session
        self.level: Level = level(level_number)
        self.executor = executor
        self.rng = random.Random(seed)
        self.think_s = think_s if think_s is not None else self.level.think_s
        self.tempo = tempo
        self.personality = personality  # client/bot/defence.py
        self.explain = explain  # say each choice in the room's chat
        self.say = say or (lambda line: log.info("%s", line))
        self._acted: tuple[Any, ...] | None = None
        self._task: asyncio.Task[None] | None = None
        self._last_sent: tuple[int, ts.Stroke] | None = None  # (request id, the stroke)
        self.strokes_sent = 0
        self.think_times: list[float] = []
        self.plans: list[Plan] = []  # every stroke's plan, in order (a bench reads them)

    async def play_match(self, rematches: int = 0) -> tc.GameOver:
        """Play until the match is over (and ``rematches`` more matches); returns the last
        ``game_over``."""
        state = self.session.state
        if state.seat is None:
            raise RuntimeError("the bot's session must hold a seat (join a room first)")
        games_left = rematches
        while True:
            self._maybe_act()
            msg = await self.session.events.get()
            if isinstance(msg, Link) and msg.status in ("restored", "lost"):
                self._forget()  # anything in flight may be lost: look again when back
            elif isinstance(msg, Link) and msg.status in ("rejoin_failed", "closed"):
                raise ConnectionLost(f"the bot lost its seat: {msg}")
            elif isinstance(msg, tc.Error) and self._is_mine(msg):
                await self._on_refused(msg)
            elif isinstance(msg, tc.GameOver):
                winner = msg.winner
                if winner is None:
                    self.say(f"game over: draw ({msg.reason})")
                else:
                    mine = " (us)" if winner == self.session.state.seat else ""
                    self.say(f"game over: seat {winner}{mine} wins ({msg.reason})")
                if games_left <= 0:
                    self._forget()
                    return msg
                games_left -= 1
                await self.session.rematch()

    def _is_mine(self, msg: tc.Error) -> bool:
        return self._last_sent is not None and msg.re == self._last_sent[0]

    # Deciding what to do -----------------------------------------------------------------
    def _forget(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None
        self._acted = None

    def _maybe_act(self) -> None:
        state = self.session.state
        match, seat = state.match, state.seat
        if match is None or seat is None or not state.connected or state.match_stale:
            return
        phase = match.phase
        lag_seq = state.last_lag.seq if state.last_lag else None
        key: tuple[Any, ...] | None = None
        job: Callable[[], Any] | None = None
        # R-TEAM-1: in a team room the lag and the break choice are the first player's, and a
        # stroke is the partner's whose turn it is (the referee refuses the other, R-TEAM-4).
        if phase == Phase.LAG and state.my_lag and not (match.lag and match.lag.played[seat]):
            key = ("lag", lag_seq)
            job = self._lag
        elif (
            phase == Phase.BREAK_CHOICE
            and state.my_lag
            and match.lag is not None
            and match.lag.winner == seat
        ):
            key = ("break_choice", lag_seq)
            job = self._choose_break
        elif phase == Phase.PLAY and state.my_turn and match.deadline_ms:
            key = ("play", match.deadline_ms, str(match.balls))
            job = self._stroke
        if key is None or key == self._acted or job is None:
            return
        self._forget()
        self._acted = key
        self._task = asyncio.create_task(self._run(job), name="bot-act")

    async def _run(self, job: Callable[[], Any]) -> None:
        try:
            await job()
        except asyncio.CancelledError:
            raise
        except ConnectionLost:
            self._acted = None  # retried after the session is restored
        except Exception:
            log.exception("the bot failed to act; it will try again on the next event")
            self._acted = None

    async def _think(self, fn: Callable[..., Plan], *args: Any) -> Plan:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, functools.partial(fn, *args))

    def _budget_s(self) -> float:
        """Thinking time left for this stroke: the level's cap, and never past the clock."""
        state = self.session.state
        budget = self.think_s
        deadline = state.deadline_ms
        if deadline is not None:
            left = (deadline - self.session.server_now_ms()) / 1000.0 - CLOCK_MARGIN_S
            budget = min(budget, max(0.2, left))
        return budget

    async def _lag(self) -> None:
        state = self.session.state
        assert state.seat is not None
        room, match = state.room, state.match
        if room is None or match is None:
            return
        lag_ball = match.ball_of(state.seat)  # R-LAG-1: seat 0 lags with white, 1 with yellow
        balls = tuple((float(match.balls[b][0]), float(match.balls[b][1])) for b in BALLS)
        problem = LagProblem(
            table=room.options.table,
            balls=(balls[0], balls[1], balls[2]),
            cue=cast(BallName, lag_ball),
        )
        plan = await self._think(plan_lag, problem, self.level.number, self.rng.randrange(2**31))
        await self._wait_until_rest()
        await self._send_plan(plan)
        if self.explain and plan.reason:
            with contextlib.suppress(ConnectionLost):
                await self.session.chat(plan.reason[0].upper() + plan.reason[1:] + ".")
        self.say(f"lag stroke: {plan.describe()}")

    async def _choose_break(self) -> None:
        breaker = plan_choice_of_break(self.level.number)
        await self.session.choose_break(breaker)
        self.say(f"won the lag, chooses breaker: {breaker}")

    async def _stroke(self) -> None:
        state = self.session.state
        assert state.seat is not None
        if state.room is None or state.match is None:
            return
        problem = problem_from(state.room, state.match, state.seat)
        if problem is None:
            return
        budget = self._budget_s()
        seed = self.rng.randrange(2**31)
        plan = await self._think(
            plan_stroke,
            problem,
            self.level.number,
            seed,
            budget,
            self.tempo,
            True,
            self.personality,
        )
        self.think_times.append(plan.think_s)
        self.plans.append(plan)
        if plan.respot:
            await self.session.respot()
            self.say("frozen: asks for a re-spot (R-FROZEN-1)")
            # The re-spot moves balls without a match view; fetch one so the next plan starts
            # from where the balls now are (the new positions make a new moment to act in).
            await asyncio.sleep(0.2)
            await self.session.sync()
            return
        await self._wait_until_rest()
        await self._send_plan(plan)
        if self.explain and plan.reason:
            with contextlib.suppress(ConnectionLost):
                await self.session.chat(plan.reason[0].upper() + plan.reason[1:] + ".")
        self.say(
            f"{problem.cue} stroke: {plan.describe()} (expects {plan.expected:.2f}, "
            f"{plan.sims} sims, {plan.think_s:.1f} s)"
        )

    async def _wait_until_rest(self) -> None:
        state = self.session.state
        rest = 0
        if state.last_stroke is not None:
            rest = max(rest, state.last_stroke.rest_ms)
        if state.last_lag is not None:
            rest = max(rest, state.last_lag.rest_ms or 0)
        if state.match is not None:
            rest = max(rest, state.match.resting_at_ms)
        wait_ms = rest + REST_MARGIN_MS - self.session.server_now_ms()
        if wait_ms > 0:
            await asyncio.sleep(wait_ms / 1000.0)

    async def _send_plan(self, plan: Plan) -> None:
        stroke = ts.Stroke(cue=plan.cue)
        msg_id = await self.session.send(stroke)
        self._last_sent = (msg_id, stroke)
        self.strokes_sent += 1

    async def _on_refused(self, msg: tc.Error) -> None:
        code = msg.code
        self.say(f"stroke refused: {code}: {msg.message}")
        if code == ErrorCode.BALLS_MOVING and self._last_sent is not None:
            await asyncio.sleep(0.25)
            with contextlib.suppress(ConnectionLost):
                msg_id = await self.session.send(self._last_sent[1])
                self._last_sent = (msg_id, self._last_sent[1])
            return
        # Anything else (already played, not our turn, the clock ran out): the match has moved
        # on without this stroke. Keep the decision made for this moment, so the bot does not
        # resend the same refused stroke; the next turn brings a new moment.
