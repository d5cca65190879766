"""``carom tournament create|list|show|cancel`` against a real server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from shared.protocol import tournament as tw
from tests.server.net.test_tournaments import (
    PASSWORD,
    FakeClock,
    close_all,
    member,
    organizer,
    running,
    url_of,
)


async def _carom(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CAROM_PASSWORD": PASSWORD}
    return await asyncio.get_running_loop().run_in_executor(
        None,
        lambda: subprocess.run(
            [sys.executable, "-m", "client.cli", "tournament", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        ),
    )


async def test_an_organizer_creates_shows_and_cancels_from_the_terminal(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)  # the account "Olga", granted
        made = await _carom(
            "--url",
            url,
            "create",
            "Spring cup",
            "--account",
            "Olga",
            "--format",
            "swiss",
            "--rounds",
            "3",
            "--capacity",
            "8",
            "--distance",
            "10",
            "--starts-in",
            "30",
        )
        assert made.returncode == 0, made.stderr
        assert made.stdout.startswith("created Spring cup: t")
        tid = made.stdout.split(": ")[1].strip()
        ann = await member(url, "Anna")
        await ann.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
        listed = await _carom("--url", url, "list")
        assert listed.returncode == 0, listed.stderr
        assert f"{tid}  Spring cup: swiss, three_cushion to 10, 1/8 players, registration" in (
            listed.stdout
        )
        shown = await _carom("--url", url, "show", tid)
        assert "organized by Olga: registration" in shown.stdout
        assert "players: Anna" in shown.stdout
        refused = await _carom("--url", url, "create", "Mine", "--account", "Anna")
        assert refused.returncode == 1
        assert "Only an organizer can create tournaments" in refused.stderr
        cancelled = await _carom("--url", url, "cancel", tid, "--account", "Olga")
        assert cancelled.returncode == 0, cancelled.stderr
        assert cancelled.stdout.strip() == f"cancelled Spring cup ({tid})"
        t = await org.request(tw.GetTournament(tournament_id=tid), tw.TournamentInfo)
        assert t.state == "cancelled"
        await close_all([org, ann])


def test_show_text_reads_like_a_bracket() -> None:
    from client.tournament_cli import show_text

    t = tw.TournamentInfo(
        tournament_id="t1",
        options=tw.TournamentOptionsView(
            name="Cup",
            discipline="three_cushion",
            distance=15,
            format="knockout",
            capacity=4,
            registration_closes_ms=0,
            starts_ms=0,
            no_show_s=300,
        ),
        organizer="Olga",
        state="running",
        version=9,
        players=tuple(
            tw.TournamentPlayer(player_id=p, name=n, seed=i)
            for i, (p, n) in enumerate([("a", "Anna"), ("b", "Bob"), ("c", "Cyd")], 1)
        ),
        rounds=(
            tw.TournamentRound(
                round=1,
                matches=(
                    tw.TournamentMatch(players=("a",), state="done", winner="a", reason="bye"),
                    tw.TournamentMatch(
                        players=("b", "c"),
                        state="done",
                        winner="c",
                        reason="distance",
                        score=(
                            tw.TournamentScore(points=9, innings=20, high_run=3),
                            tw.TournamentScore(points=15, innings=20, high_run=4),
                        ),
                    ),
                ),
            ),
            tw.TournamentRound(
                round=2,
                matches=(tw.TournamentMatch(players=("a", "c"), state="open", room_id="r1"),),
            ),
        ),
        standings=(),
    )
    assert show_text(t).splitlines() == [
        "Cup (t1): knockout, three_cushion to 15, organized by Olga: running",
        "players: 1. Anna, 2. Bob, 3. Cyd",
        "round 1:",
        "  Anna: bye",
        "  Bob v Cyd 9-15: Cyd wins (distance)",
        "round 2:",
        "  Anna v Cyd: at table r1",
    ]
