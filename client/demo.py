"""``make demo`` (``python -m client.demo``): a local server, two bots playing a three-cushion
game to 5 points, and the terminal spectator printing it live. Ends by itself with the final
scoresheet.

Everything is real: the server runs as its own process (``python -m server``) on a free
loopback port with a throw-away database; the bots and the spectator are ordinary clients of
it. The bots think in a worker process, so the spectator's clock keeps ticking.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from client.bot.player import BotPlayer
from client.session import Session
from client.watch import watch
from server.process import ServerProcess


async def demo(url: str, distance: int, level: int, tempo: float, seed: int = 0) -> int:
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        # Start the worker now: its imports (the physics) must not eat the first shot clock.
        await asyncio.get_running_loop().run_in_executor(pool, _warm_up)
        alice = Session(url, "Alice (bot L5)", remember_identity=False)
        bob = Session(url, "Bob (bot L5)", remember_identity=False)
        await alice.connect()
        await bob.connect()
        # Set play without the equalizing inning (R-END-2 is a match option; HE's three-cushion
        # text has none): the demo must end within 3 minutes, and table time dominates it.
        room_id = await alice.create_room("three_cushion", distance=distance, equalizing=False)
        print(f"Demo: local server at {url}, room {room_id}", flush=True)
        # The demo's spectator tells each stroke as it is struck (at_rest=False): the game is
        # printed as it goes and the demo ends with the last stroke, inside its 3 minutes.
        spectator = asyncio.create_task(watch(url, room_id, name="demo spectator", at_rest=False))
        await asyncio.sleep(0.3)  # let the spectator see the players sit down
        await alice.join(room_id)
        await bob.join(room_id)
        players = [
            BotPlayer(s, level, executor=pool, seed=seed + i, tempo=tempo)
            for i, s in enumerate((alice, bob))
        ]
        try:
            await asyncio.gather(*(p.play_match() for p in players))
            return await asyncio.wait_for(spectator, 30)
        finally:
            spectator.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await spectator
            await alice.close()
            await bob.close()


def _warm_up() -> bool:
    from shared.physics import engine  # noqa: F401

    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m client.demo", description=__doc__)
    parser.add_argument("--distance", type=int, default=5)
    parser.add_argument("--level", type=int, default=5, choices=range(1, 6))
    parser.add_argument("--tempo", type=float, default=0.03, help="see carom bot --tempo")
    parser.add_argument("--seed", type=int, default=20, help="the bots' random seed")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="carom-demo-") as tmp:
        os.environ.setdefault("CAROM_IDENTITY", str(Path(tmp) / "identity.json"))
        with ServerProcess(Path(tmp) / "demo.db", workers=1) as server:
            try:
                code = asyncio.run(
                    demo(server.url, args.distance, args.level, args.tempo, args.seed)
                )
            except KeyboardInterrupt:
                code = 130
    print(f"Demo finished in {time.monotonic() - started:.0f} s.", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
