"""The player's identity token, kept in a small local file between runs.

The server hands out a secret identity token in ``welcome``; sending it back in a later ``hello``
keeps the same player (name, ratings, match history). The token is stored per server URL, so a
bot that plays on two servers keeps two identities. The file is written atomically and made
private to the user: the token is a password in all but name.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

ENV_VAR = "CAROM_IDENTITY"


def default_path() -> Path:
    """``$CAROM_IDENTITY``, else ``$XDG_CONFIG_HOME/carom/identity.json`` (``~/.config``)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "carom" / "identity.json"


class IdentityStore:
    """Tokens by server URL (and by player name, so several bots on one machine do not share
    one identity)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()

    @staticmethod
    def _key(url: str, name: str) -> str:
        return f"{url}#{name}"

    def _data(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            # A damaged file must not stop anyone from playing: start a fresh identity, and
            # keep the damaged file aside rather than overwrite what may be recoverable.
            with contextlib.suppress(OSError):
                self.path.replace(self.path.with_suffix(".damaged"))
            return {}
        return data if isinstance(data, dict) else {}

    def _read(self) -> dict[str, str]:
        tokens = self._data().get("tokens")
        if not isinstance(tokens, dict):
            return {}
        return {k: v for k, v in tokens.items() if isinstance(k, str) and isinstance(v, str)}

    def _seats(self) -> dict[str, dict[str, str]]:
        seats = self._data().get("seats")
        if not isinstance(seats, dict):
            return {}
        return {
            k: {r: t for r, t in v.items() if isinstance(r, str) and isinstance(t, str)}
            for k, v in seats.items()
            if isinstance(k, str) and isinstance(v, dict)
        }

    def load(self, url: str, name: str) -> str | None:
        return self._read().get(self._key(url, name))

    def save(self, url: str, name: str, token: str) -> None:
        tokens = self._read()
        key = self._key(url, name)
        if tokens.get(key) == token:
            return
        tokens[key] = token
        self._write(tokens, self._seats())

    # Seats: the secret key to a seat is kept with the identity, so a player who leaves a
    # running match (or whose window closed) can come back to it from the lobby.
    def seats(self, url: str, name: str) -> dict[str, str]:
        """room id → seat token for the seats this player holds on ``url``."""
        return dict(self._seats().get(self._key(url, name), {}))

    def save_seat(self, url: str, name: str, room_id: str, seat_token: str) -> None:
        seats = self._seats()
        mine = seats.setdefault(self._key(url, name), {})
        if mine.get(room_id) == seat_token:
            return
        mine[room_id] = seat_token
        del_old = list(mine)[:-20]  # a few recent rooms are plenty
        for r in del_old:
            del mine[r]
        self._write(self._read(), seats)

    def forget_seat(self, url: str, name: str, room_id: str) -> None:
        seats = self._seats()
        mine = seats.get(self._key(url, name), {})
        if mine.pop(room_id, None) is not None:
            self._write(self._read(), seats)

    def _write(self, tokens: dict[str, str], seats: dict[str, dict[str, str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".identity-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                data = {"version": 1, "tokens": tokens, "seats": seats}
                json.dump(data, fh, indent=1, sort_keys=True)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
