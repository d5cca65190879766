"""The ``carom`` command: one entry point, one subcommand per capability.

Each subcommand lives in the module that owns the capability; that module exposes
``configure(parser)`` and ``run(args) -> int`` and keeps its module-level imports light, so
``carom --help`` stays fast and never imports arcade or pymunk. A subcommand whose module is
not there says so plainly and exits non-zero instead of pretending.

The command lives in ``client`` because ``client`` is the only package allowed to depend on all
the others (``carom play`` starts a local server); ``shared`` never imports ``server`` or
``client``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

# name -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "play": ("client.app.cli", "open the game window (local server + bot opponent by default)"),
    "serve": ("server.cli", "run an authoritative game server"),
    "bot": ("client.bot_cli", "connect a bot player to a server"),
    "watch": ("client.watch", "watch a table live from the terminal"),
    "sim": ("shared.physics.cli", "simulate strokes from the command line"),
    "admin": ("server.admin_cli", "operator commands on a server's database (organizers)"),
    "tournament": ("client.tournament_cli", "create, list, show and cancel tournaments"),
    "stats": ("client.stats", "a player's statistics and charts from recorded matches"),
    "daily": ("client.daily_cli", "today's problem from recorded play, and the bot's answer"),
}

NOT_AVAILABLE_EXIT = 3


def _load(module_name: str) -> ModuleType | None:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only "the capability is not built yet" is tolerated; a missing dependency inside
        # the module is a real error and must surface.
        if exc.name is not None and module_name.startswith(exc.name):
            return None
        raise


def build_parser(
    only: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, ModuleType | None]]:
    """The whole command line; with ``only``, just that subcommand's module is imported and its
    options configured (the others are listed by name). Importing all nine costs a fifth of a
    second, and every game window, bot and local server is started through this entry point."""
    parser = argparse.ArgumentParser(
        prog="carom",
        description="Online carom billiards: play, serve, run bots, watch tables, simulate.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules: dict[str, ModuleType | None] = {}
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, description=help_text)
            continue
        module = _load(module_name)
        modules[name] = module
        if module is None:
            sub.add_parser(name, help=f"{help_text} (not available yet)", description=help_text)
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.configure(p)
    return parser, modules


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    chosen = words[0] if words and words[0] in SUBCOMMANDS else None
    parser, modules = build_parser(only=chosen)
    args = parser.parse_args(words)
    if args.command is None:
        parser.print_help()
        return 2
    module = modules[args.command]
    if module is None:
        print(
            f"carom {args.command}: this capability has not landed yet "
            f"({SUBCOMMANDS[args.command][0]} is missing).",
            file=sys.stderr,
        )
        return NOT_AVAILABLE_EXIT
    result: int = module.run(args)
    return result


def console() -> int:
    """The ``carom`` program: ``main`` on its command line, then the process exits. What the
    command made is freed by the OS; frozen, the heap is not walked once more by the
    interpreter's shutdown (a tenth of a second of CPU when a game window closes)."""
    result = main()
    gc.freeze()
    return result


if __name__ == "__main__":
    sys.exit(console())
