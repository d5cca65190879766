"""``carom play``: open the game window.

Module-level imports stay light (argparse only): arcade loads in :func:`run`, after
``ARCADE_HEADLESS`` is decided, so ``carom --help`` never touches a window toolkit.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from shared.protocol import DISCIPLINES  # the wire names, one list
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts

if TYPE_CHECKING:
    from client.app.model import UIEvent


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url", default=None, help="server URL (ws://HOST:PORT/); default: a local server + bot"
    )
    parser.add_argument("--name", default=None, help="your player name (default: $USER)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--room", metavar="ID", help="join this room")
    where.add_argument("--spectate", metavar="ID", help="watch this room")
    where.add_argument(
        "--drills",
        action="store_true",
        help="open the diamond-system drills: corner five or plus system (docs/analysis.md)",
    )
    parser.add_argument(
        "--discipline",
        choices=DISCIPLINES,
        default="three_cushion",
        help="discipline of the local game (without --url)",
    )
    parser.add_argument(
        "--level",
        type=int,
        default=3,
        choices=range(1, 6),
        help="local bot opponent's level, 1-5 (without --url)",
    )
    parser.add_argument("--screenshot", metavar="FILE", help="save the window to FILE and exit")
    parser.add_argument(
        "--after",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="with --screenshot: render this long first (default 2)",
    )
    parser.add_argument(
        "--offscreen",
        action="store_true",
        help="no window (ARCADE_HEADLESS); implied by --screenshot without a display",
    )


def run(args: argparse.Namespace) -> int:
    if args.offscreen and args.screenshot is None:
        # Headless arcade runs no scheduled callbacks: an offscreen window with nothing to save
        # would sit there forever.
        print("carom play: --offscreen goes with --screenshot FILE", file=sys.stderr)
        return 2
    headless = bool(args.offscreen) or (
        args.screenshot is not None and not os.environ.get("DISPLAY")
    )
    if headless:
        from client.app.offscreen import draw_offscreen

        draw_offscreen()
    elif sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        # Say so before starting a local server, rather than a toolkit traceback after it.
        print(
            "carom play: there is no display to open the window on ($DISPLAY is not set). "
            "Run it from a desktop session, under `xvfb-run -a carom play`, or render offscreen "
            "with --screenshot FILE.",
            file=sys.stderr,
        )
        return 2
    if args.after is not None and args.after < 0:
        print("carom play: --after must be >= 0 seconds", file=sys.stderr)
        return 2
    name = args.name or os.environ.get("USER") or "player"

    from client.app.local import LocalGame

    # SIGTERM (a session logging out, ``kill``) and SIGHUP (the terminal closed) end the game
    # as closing the window does: through the ``finally`` below, which stops the local server
    # and the bot, rather than by Python's default of dying on the spot and leaving them.
    # SIGINT (Ctrl-C) already arrives as KeyboardInterrupt.
    ending = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {sig: signal.getsignal(sig) for sig in ending}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)
    local: LocalGame | None = None
    url = args.url
    try:
        if url is None:
            local = LocalGame(adopt=True)
            try:
                url = local.start_server()
            except (RuntimeError, OSError) as exc:
                print(f"carom play: {exc}", file=sys.stderr)
                return 1
        return _play(args, url, name, local, headless)
    except KeyboardInterrupt:
        return 130
    finally:
        # A second signal must not cut the stopping short and leave half of it running.
        for sig in ending:
            signal.signal(sig, signal.SIG_IGN)
        try:
            if local is not None:
                local.stop()
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _play(args: argparse.Namespace, url: str, name: str, local: Any, headless: bool) -> int:
    import arcade

    from client.app.app import Controller, make_window, run_frames
    from client.app.sound import Sounds

    window = make_window(visible=not headless)
    controller = Controller(window, sounds=Sounds(enabled=not headless))
    controller.local = local
    err = controller.connect(url, name)
    controller.show_lobby()
    if err is not None:
        print(f"carom play: {err}", file=sys.stderr)
        lobby = window.current_view
        if lobby is not None:
            lobby.status = err  # type: ignore[attr-defined]
        if args.screenshot is None and local is not None:
            window.close()
            return 1  # the local server we started is not answering: nothing to show
    elif args.room:
        held = controller.held_seats()
        if args.room in held:  # our seat in a match under way: take it back
            controller.send(ts.Rejoin(room_id=args.room, seat_token=held[args.room]))
        else:
            controller.send(ts.Join(room_id=args.room, password=None))
    elif args.spectate:
        controller.send(ts.Spectate(room_id=args.spectate, password=None))
    elif args.drills:
        from client.app.drill_view import DrillView

        window.show_view(DrillView(controller))
    elif local is not None:

        def on_message(msg: UIEvent) -> None:
            if isinstance(msg, tc.RoomCreated) and local.bot is None:
                local.start_bot(msg.room_id, args.level)

        controller.on_message.append(on_message)
        controller.create_and_join({"discipline": args.discipline})
    try:
        if args.screenshot is not None:
            image = run_frames(window, args.after)
            image.convert("RGB").save(args.screenshot, compress_level=1)
            print(args.screenshot)
        else:
            # With a remote URL that did not answer, the lobby stays open with the error so
            # the player can fix the URL and connect again.
            arcade.run()
    finally:
        if controller.net is not None:
            controller.net.close()
        if not window.closed:
            window.close()
    return 1 if err is not None and args.screenshot is not None else 0
