"""Which pages may open the websocket: the server's own, those the operator allows, and
clients that send no Origin at all (bots, the desktop client, the headless client)."""

from __future__ import annotations

from urllib.parse import urlsplit


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a websocket handshake with this ``Origin`` header may proceed.

    - no Origin: not a browser page (bots, the desktop client): allowed;
    - the page's own origin (the Origin's host and port are the request's ``Host``): allowed,
      so the pages this server serves work over http://, and over https:// behind a
      TLS-terminating proxy that passes the Host on;
    - an Origin in ``allowed`` (``carom serve --origin``), or ``*`` there: allowed;
    - anything else (another site's page, ``null`` from a sandboxed frame or a file): refused.
    """
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    if not host:
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    default = "443" if parts.scheme == "https" else "80"
    return _netloc(parts.netloc, default) == _netloc(host, default)


def _netloc(value: str, default_port: str) -> str:
    """``host:port`` in lower case with the scheme's default port made explicit."""
    value = value.strip().lower()
    if value.startswith("["):  # [v6]:port
        end = value.find("]")
        host, rest = value[: end + 1], value[end + 1 :]
        port = rest[1:] if rest.startswith(":") else default_port
    elif ":" in value:
        host, port = value.rsplit(":", 1)
    else:
        host, port = value, default_port
    return f"{host}:{port or default_port}"
