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

    def _read(self) -> dict[str, str]:
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
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, dict):
            return {}
        return {k: v for k, v in tokens.items() if isinstance(k, str) and isinstance(v, str)}

    def load(self, url: str, name: str) -> str | None:
        return self._read().get(self._key(url, name))

    def save(self, url: str, name: str, token: str) -> None:
        tokens = self._read()
        key = self._key(url, name)
        if tokens.get(key) == token:
            return
        tokens[key] = token
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".identity-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": 1, "tokens": tokens}, fh, indent=1, sort_keys=True)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
