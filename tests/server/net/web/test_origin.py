"""Which pages may open the game's websocket (server/net/web/origin.py)."""

from __future__ import annotations

import pytest

from server.net.web.origin import origin_allowed


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        (None, "127.0.0.1:8765"),  # bots and the desktop client send no Origin
        ("http://127.0.0.1:8765", "127.0.0.1:8765"),  # the server's own page
        ("https://carom.example", "carom.example"),  # behind a TLS proxy, default port
        ("https://carom.example", "carom.example:443"),
        ("http://CAROM.example:80", "carom.example"),
        ("http://[::1]:8765", "[::1]:8765"),
    ],
)
def test_own_pages_and_clients_without_origin_pass(origin: str | None, host: str) -> None:
    assert origin_allowed(origin, host, ())


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://evil.example", "127.0.0.1:8765"),
        ("http://127.0.0.1:9999", "127.0.0.1:8765"),  # another port is another origin
        ("https://carom.example", "carom.example:8443"),
        ("http://localhost:8765", "127.0.0.1:8765"),
        ("null", "127.0.0.1:8765"),  # a sandboxed frame or a file
        ("file://", "127.0.0.1:8765"),
        ("http://127.0.0.1:8765", None),
        ("javascript://127.0.0.1:8765", "127.0.0.1:8765"),
    ],
)
def test_other_origins_are_refused(origin: str, host: str | None) -> None:
    assert not origin_allowed(origin, host, ())


def test_the_operator_allows_more() -> None:
    assert origin_allowed("https://club.example", "127.0.0.1:8765", ("https://club.example",))
    assert not origin_allowed("https://other.example", "127.0.0.1:8765", ("https://club.example",))
    assert origin_allowed("https://any.example", "127.0.0.1:8765", ("*",))
