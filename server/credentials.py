"""Room passwords (scrypt with a per-room salt) and secret tokens.

Passwords are never stored or logged in clear. Identity and seat tokens are random bearer
secrets; the database keeps only their SHA-256, so a leaked database file cannot be used to take
anyone's seat.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

# scrypt cost (RFC 7914 §2 suggests N=2^14, r=8 for interactive logins): ~16 MiB, tens of ms.
_N, _R, _P = 2**14, 8, 1


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


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
