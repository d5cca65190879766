"""Domain events (server/core/events.py): the room core says what happened among its effects, and
the
server publishes it on its bus once it is durable; the standing desk hears a result from there
and tells the rated players their change at once."""

from __future__ import annotations

from server.core import events as ev
from server.net.gateway import GameServer
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.core.test_room import _to_play
from tests.server.net.test_live_room import OPTIONS
from tests.server.wire import Wire, find_scoring_stroke


def test_the_bus_tells_every_subscriber_in_order_filters_by_kind_and_survives_a_failure() -> None:
    bus = ev.EventBus()
    heard: list[str] = []
    finished = ev.MatchFinished("r1", 7, "three_cushion", ("a", "b"), 1, "distance", 5)
    started = ev.MatchStarted("r1", 7, "three_cushion", ("a", "b"), 1)

    def broken(event: ev.DomainEvent) -> None:
        raise RuntimeError("a subscriber's own bug")

    bus.subscribe(lambda e: heard.append(f"all:{type(e).__name__}"))
    bus.subscribe(broken)
    bus.subscribe(lambda e: heard.append("finished"), ev.MatchFinished)
    bus.publish(started)
    bus.publish(finished)
    assert heard == ["all:MatchStarted", "all:MatchFinished", "finished"]
    assert (bus.published, bus.failures) == (2, 2)


def test_the_room_core_reports_a_match_begun_its_strokes_and_its_end() -> None:
    d, breaker = _to_play(distance=5, shot_clock_s=30)
    [started] = [e for e in d.events if isinstance(e, ev.MatchStarted)]
    assert started.match_id == d.room.match_id and started.players == ("p-alice", "p-bob")
    assert not any(isinstance(e, ev.StrokePlayed) for e in d.events)  # the lag is no stroke
    stroke, _ = find_scoring_stroke(d.room.snapshot(None, now=d.now).match, OPTIONS)
    d.send(d.players[breaker], stroke)
    [played] = [e for e in d.events if isinstance(e, ev.StrokePlayed)]
    assert (played.seat, played.points, played.match_id) == (breaker, 1, started.match_id)
    d.until_rest()
    d.send(d.players[breaker], ts.Concede())
    [over] = [e for e in d.events if isinstance(e, ev.MatchFinished)]
    assert (over.winner, over.reason, over.match_id) == (1 - breaker, "concede", started.match_id)
    assert over.players == started.players


async def test_a_published_result_is_already_in_the_store(server: GameServer, url: str) -> None:
    seen: list[tuple[ev.DomainEvent, object]] = []

    def look(event: ev.DomainEvent) -> None:
        assert server.store is not None and event.match_id is not None
        stored = server.store.match(event.match_id)
        seen.append((event, None if stored is None else stored.get("reason")))

    server.events.subscribe(look)
    ann, bob = await Wire.open(url, "ann"), await Wire.open(url, "bob")
    rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
    await ann.request(ts.Join(room_id=rid), tc.Joined)
    await bob.request(ts.Join(room_id=rid), tc.Joined)
    await bob.expect(tc.Call, where=lambda c: c.code == "lag")
    await bob.send(ts.Concede())
    await ann.expect(tc.GameOver)
    kinds = [type(e).__name__ for e, _ in seen]
    assert kinds == ["MatchStarted", "MatchFinished"]
    # Durable before anyone hears of it: the row already says how the match ended.
    assert seen[1][1] == "concede"
