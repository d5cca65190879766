"""``carom admin``: the operator's commands on a server's database (docs/tournaments.md).

``carom admin grant-organizer NAME --db DB`` gives the registered account NAME the right to
create and cancel tournaments; ``revoke-organizer`` takes it back. They open the database
directly — the SQLite file (also while a server runs on it: WAL lets both write) or a cluster's
PostgreSQL — and change one row; a running server reads the right at each request.
"""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, help_text in (
        ("grant-organizer", "let a registered account create and cancel tournaments"),
        ("revoke-organizer", "take that right back"),
    ):
        p = sub.add_parser(action, help=help_text, description=help_text)
        p.add_argument("name", help="the account's name")
        p.add_argument(
            "--db",
            default="carom.db",
            help="SQLite file (default carom.db), or postgresql://USER@HOST:PORT/DB",
        )


def run(args: argparse.Namespace) -> int:
    import time

    from server.core.accounts import name_key
    from server.store.api import open_store
    from server.store.sqlite import StoreError

    try:
        store = open_store(args.db)
    except StoreError as exc:
        print(f"carom admin: {exc}", file=sys.stderr)
        return 1
    try:
        account = store.standings.account_by_key(name_key(args.name))
        if account is None:
            print(f"carom admin: there is no account named {args.name!r}", file=sys.stderr)
            return 1
        book = store.tournaments
        with store.transaction():
            if args.action == "grant-organizer":
                changed = book.grant_organizer(account.player_id, int(time.time() * 1000))
                said = "may now organize tournaments" if changed else "was an organizer already"
            else:
                changed = book.revoke_organizer(account.player_id)
                said = "may no longer organize tournaments" if changed else "was no organizer"
        print(f"{account.name} {said}")
        return 0
    finally:
        store.close()
