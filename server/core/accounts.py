"""Accounts, sans I/O: which names may be claimed, when two names are "the same", and how many
login attempts a name or a connection may make (time passed in, so tests need no sleeps).

The I/O around it (scrypt off the event loop, the SQLite rows, the wire) is in
``server/net/desk.py`` and ``server/store/standings.py``.
"""

from __future__ import annotations

import argparse
import re
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from typing import Final

from server.core.names import skeleton

NAME_MIN: Final = 3
NAME_MAX: Final = 20
PASSWORD_MIN: Final = 8

# What an account name may contain: letters and digits of any script, plus a few separators.
_ALLOWED = re.compile(r"^[\w .'-]+$")
# On top of server.core.names.skeleton (NFKC, case, separators, Cyrillic/Greek look-alikes), the
# digit and letter swaps people use to pass for someone: "B1ll", "Bill" and "BiII" are one key.
_SWAPS = str.maketrans({"i": "l", "3": "e", "5": "s"})
# Names that would look like the server speaking, or that nobody should be able to own.
_RESERVED: Final = frozenset(
    {"admin", "administrator", "moderator", "server", "referee", "system", "carom", "guest"}
)
# Offensive-looking names: a short list of roots matched inside the folded key. Deliberately
# small (it only has to catch the obvious); operators can extend it.
_BLOCKED_ROOTS: Final = ("fuck", "shlt", "cunt", "nlgger", "nlgga", "faggot", "hltler", "nazl")


def name_key(name: str) -> str:
    """The uniqueness key of a name: NFKC, case-folded, separators dropped, look-alikes folded."""
    return skeleton(name).translate(_SWAPS)


def name_problem(name: str) -> str | None:
    """Why this name cannot be claimed (a sentence for the player), or None when it can."""
    clean = unicodedata.normalize("NFKC", name).strip()
    if clean != name.strip() or name != name.strip():
        return "A name cannot start or end with spaces or use unusual character forms."
    if not NAME_MIN <= len(name) <= NAME_MAX:
        return f"A name has {NAME_MIN} to {NAME_MAX} characters."
    if not _ALLOWED.match(name):
        return "A name uses letters, digits, spaces and . ' - _ only."
    if any(unicodedata.category(c) in ("Cf", "Mn") for c in name):
        return "A name cannot contain invisible or combining characters."
    scripts = {unicodedata.name(c, "?").split(" ")[0] for c in name if c.isalpha()}
    if len(scripts) > 1:
        return "A name uses letters of one alphabet only."
    key = name_key(name)
    if len(key) < NAME_MIN:
        return f"A name needs at least {NAME_MIN} letters or digits."
    if key in {name_key(r) for r in _RESERVED}:
        return "That name is reserved."
    if any(root in key for root in _BLOCKED_ROOTS):
        return "Please choose another name."
    return None


def password_problem(password: str, name: str) -> str | None:
    if len(password) < PASSWORD_MIN:
        return f"A password has at least {PASSWORD_MIN} characters."
    if name_key(password) == name_key(name):
        return "The password cannot be the name."
    return None


@dataclass(slots=True)
class AttemptLimiter:
    """At most ``limit`` attempts per key within ``window_ms`` (a sliding window).

    Used twice: per name (failed logins only, so a player who types the password right is never
    locked out by their own success) and per connection (every register/login). The wait it
    answers is the time until the oldest counted attempt leaves the window.
    """

    limit: int
    window_ms: int
    max_keys: int = 100_000  # memory bound: expired keys are dropped when this many are held
    _seen: dict[str, deque[int]] = field(default_factory=dict)

    def wait_ms(self, key: str, now_ms: int) -> int:
        """0 if an attempt is allowed now, else how long to wait."""
        times = self._seen.get(key)
        if times is None:
            return 0
        while times and times[0] <= now_ms - self.window_ms:
            times.popleft()
        if not times:
            del self._seen[key]
            return 0
        if len(times) < self.limit:
            return 0
        return times[0] + self.window_ms - now_ms

    def count(self, key: str, now_ms: int) -> None:
        if key not in self._seen and len(self._seen) >= self.max_keys:
            self._prune(now_ms)
        times = self._seen.setdefault(key, deque())
        times.append(now_ms)
        while len(times) > self.limit:
            times.popleft()

    def clear(self, key: str) -> None:
        self._seen.pop(key, None)

    def _prune(self, now_ms: int) -> None:
        cutoff = now_ms - self.window_ms
        for key in [k for k, t in self._seen.items() if not t or t[-1] <= cutoff]:
            del self._seen[key]
        if len(self._seen) >= self.max_keys:  # still full: forget the stalest half
            stale = sorted(self._seen, key=lambda k: self._seen[k][-1])
            for key in stale[: len(stale) // 2]:
                del self._seen[key]


@dataclass(frozen=True, slots=True)
class AccountsConfig:
    """Limits of accounts, ratings and quick match (ServerConfig.accounts)."""

    # Failed logins per name, and register/login attempts per connection, per window.
    name_failures: int = 5
    name_window_s: float = 300.0
    conn_attempts: int = 10
    conn_window_s: float = 60.0
    # Glicko-2: one rating period (the paper: long enough for 10–15 games a player).
    rating_period_s: float = 7 * 86_400.0
    tau: float = 0.5
    # Quick match: the rating window starts at ``window`` and widens by ``widen_per_s`` for
    # every second a player waits, up to ``max_window``; after ``bot_after_s`` a waiting bot
    # account may be paired with them (unrated).
    window: float = 100.0
    widen_per_s: float = 10.0
    max_window: float = 800.0
    bot_after_s: float = 30.0
    pair_every_s: float = 0.5
    max_queue: int = 100_000


def add_account_options(parser: argparse.ArgumentParser) -> None:
    """``carom serve`` options for ratings and quick match (defaults: AccountsConfig)."""
    d = AccountsConfig()
    group = parser.add_argument_group("ratings and quick match (docs/accounts.md)")
    group.add_argument(
        "--rating-period-days",
        type=float,
        default=d.rating_period_s / 86_400,
        help=f"Glicko-2 rating period (default {d.rating_period_s / 86_400:g} days)",
    )
    group.add_argument(
        "--quick-match-window",
        type=float,
        default=d.window,
        help=f"rating window at the start of a wait (default {d.window:g})",
    )
    group.add_argument(
        "--quick-match-widen",
        type=float,
        default=d.widen_per_s,
        help=f"rating points the window widens per second waited (default {d.widen_per_s:g})",
    )
    group.add_argument(
        "--quick-match-bot-after",
        type=float,
        default=d.bot_after_s,
        help=f"seconds without a human opponent before a waiting bot is offered "
        f"(default {d.bot_after_s:g})",
    )


def accounts_from_args(args: argparse.Namespace) -> AccountsConfig:
    for name in ("rating_period_days", "quick_match_window", "quick_match_widen"):
        if not getattr(args, name) > 0:
            raise SystemExit(f"carom serve: --{name.replace('_', '-')} must be above 0")
    if args.quick_match_bot_after < 0:
        raise SystemExit("carom serve: --quick-match-bot-after must be 0 or more")
    return AccountsConfig(
        rating_period_s=args.rating_period_days * 86_400,
        window=args.quick_match_window,
        widen_per_s=args.quick_match_widen,
        bot_after_s=args.quick_match_bot_after,
    )
