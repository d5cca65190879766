"""Room passwords (scrypt with a per-room salt) and secret tokens.

Passwords are never stored or logged in clear. Identity and seat tokens are random bearer
secrets; the database keeps only their SHA-256, so a leaked database file cannot be used to take
anyone's seat.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

# scrypt cost (RFC 7914 §2 suggests N=2^14, r=8 for interactive logins): ~16 MiB, tens of ms.
_R, _P = 8, 1
DEFAULT_COST = 14  # log2 of scrypt's N
# CAROM_PASSWORD_COST sets log2 N for new hashes (docs/operations.md). Raise it on fast hardware.
# Lower it only where no password needs protecting: the test suite, which registers and logs in
# hundreds of throwaway accounts, uses 10 (about 16 times cheaper). Each stored hash carries its
# own N, so passwords stored at one cost still check at another.
COST_ENV = "CAROM_PASSWORD_COST"
COSTS = range(10, 21)


def password_cost() -> int:
    """log2 of scrypt's N for new hashes; a clear error for a setting out of range."""
    raw = os.environ.get(COST_ENV, "").strip()
    if not raw:
        return DEFAULT_COST
    if not raw.isdigit() or int(raw) not in COSTS:
        raise ValueError(f"{COST_ENV} must be a whole number from {COSTS[0]} to {COSTS[-1]}")
    return int(raw)


def hash_password(password: str, cost: int | None = None) -> str:
    """A salted scrypt hash at ``cost`` (log2 N), or at the configured cost."""
    n = 2 ** (password_cost() if cost is None else cost)
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=_R, p=_P, dklen=32)
    return f"scrypt${n}${_R}${_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        digest = hashlib.scrypt(
            password.encode(), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r), p=int(p), dklen=32
        )
    except ValueError:
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def new_token() -> str:
    """A bearer secret: 192 random bits, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
