"""The pages and files ``carom serve`` answers on its websocket's port (server/net/web), from a real
server on loopback, read as a browser reads them."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import re
import urllib.error
import urllib.request
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server.net.web.pages import STATIC_DIR
from tests.servers import serving

Reply = tuple[int, dict[str, str], bytes]


def _get(url: str, headers: dict[str, str]) -> Reply:
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


async def get(base: str, path: str, **headers: str) -> Reply:
    return await asyncio.to_thread(
        _get, base + path, {k.replace("_", "-"): v for k, v in headers.items()}
    )


def assets_of(page: bytes) -> list[str]:
    return re.findall(r'(?:src|href)="(/static/[^"]+)"', page.decode())


async def test_the_lobby_page_is_html_with_a_strict_policy(tmp_path: Path) -> None:
    async with serving(tmp_path) as srv:
        base = f"http://127.0.0.1:{srv.port}"
        status, headers, body = await get(base, "/")
        assert status == 200
        assert headers["content-type"] == "text/html; charset=utf-8"
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        html = body.decode()
        # Every script is a file: no inline code for the policy to refuse.
        assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
        assert 'data-page="lobby"' in html
        assert len(assets_of(body)) == 3  # the style, the msgpack codec, the app


@pytest.mark.parametrize("path", ["/room/r1234abcd", "/replay/42", "/player/p-abc"])
async def test_every_page_has_a_route(tmp_path: Path, path: str) -> None:
    async with serving(tmp_path) as srv:
        status, headers, body = await get(f"http://127.0.0.1:{srv.port}", path)
        assert status == 200
        assert headers["content-type"].startswith("text/html")
        assert f'data-id="{path.rsplit("/", 1)[1]}"' in body.decode()


@pytest.mark.parametrize(
    "path", ["/room/", "/room/a/b", "/room/%3Cb%3E", "/replay/abc", "/nope", "/static/app.js"]
)
async def test_anything_else_is_not_found(tmp_path: Path, path: str) -> None:
    async with serving(tmp_path) as srv:
        status, _, _ = await get(f"http://127.0.0.1:{srv.port}", path)
        assert status == 404


async def test_static_files_are_hashed_typed_compressed_and_validated(tmp_path: Path) -> None:
    async with serving(tmp_path) as srv:
        base = f"http://127.0.0.1:{srv.port}"
        _, _, page = await get(base, "/")
        types = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
        for url in assets_of(page):
            name, digest, ext = url.removeprefix("/static/").rsplit(".", 2)
            original = (STATIC_DIR / f"{name}.{ext}").read_bytes()
            assert hashlib.sha256(original).hexdigest()[:12] == digest  # content-hashed name
            status, headers, body = await get(base, url, Accept_Encoding="gzip, deflate, br")
            assert status == 200
            assert headers["content-type"] == types["." + ext]
            assert headers["content-encoding"] == "gzip"
            assert gzip.decompress(body) == original
            assert len(body) < len(original)
            assert "immutable" in headers["cache-control"]
            again, _, nothing = await get(base, url, If_None_Match=headers["etag"])
            assert (again, nothing) == (304, b"")
            plain_status, plain_headers, plain = await get(base, url)
            assert plain_status == 200 and "content-encoding" not in plain_headers
            assert plain == original


async def test_pages_revalidate(tmp_path: Path) -> None:
    async with serving(tmp_path) as srv:
        base = f"http://127.0.0.1:{srv.port}"
        _, headers, _ = await get(base, "/room/r1")
        assert headers["cache-control"] == "no-cache"
        status, _, _ = await get(base, "/room/r1", If_None_Match=headers["etag"])
        assert status == 304


async def test_the_codecs_licence_is_served_with_it(tmp_path: Path) -> None:
    async with serving(tmp_path) as srv:
        base = f"http://127.0.0.1:{srv.port}"
        text = (STATIC_DIR / "vendor" / "msgpack.LICENSE.txt").read_text()
        assert "MessagePack" in text
        codec = (STATIC_DIR / "vendor" / "msgpack.min.js").read_text()
        assert "msgpack.LICENSE.txt" in codec.splitlines()[0]
        url = next(u for u in srv.web.assets if u.startswith("/static/vendor/msgpack.LICENSE"))
        status, _, body = await get(base, url)
        assert status == 200 and body.decode() == text


async def test_health_and_metrics_are_as_they_were(tmp_path: Path) -> None:
    async with serving(tmp_path) as srv:
        base = f"http://127.0.0.1:{srv.port}"
        assert (await get(base, "/health"))[::2] == (200, b"ok\n")
        status, headers, body = await get(base, "/metrics")
        assert status == 200
        assert headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
        assert b"carom_" in body


async def ping(url: str, origin: str | None = None) -> str:
    async with connect(url, origin=Origin(origin) if origin else None) as ws:
        await ws.send(msgpack.packb({"t": "ping"}))
        answer: str = msgpack.unpackb(await ws.recv())["t"]
        return answer


async def test_the_socket_lets_in_its_own_pages_and_refuses_other_sites(tmp_path: Path) -> None:
    async with serving(tmp_path) as srv:
        url = f"ws://127.0.0.1:{srv.port}/"
        assert await ping(url) == "pong"  # bots and the desktop client: no Origin
        assert await ping(url, f"http://127.0.0.1:{srv.port}") == "pong"  # the page itself
        for other in ("http://evil.example", f"http://127.0.0.1:{srv.port + 1}", "null"):
            with pytest.raises(InvalidStatus) as info:
                await ping(url, other)
            assert info.value.response.status_code == 403


async def test_an_operator_can_allow_another_origin(tmp_path: Path) -> None:
    async with serving(tmp_path, origins=("https://club.example",)) as srv:
        url = f"ws://127.0.0.1:{srv.port}/"
        assert await ping(url, "https://club.example") == "pong"
        assert await ping(url, f"http://127.0.0.1:{srv.port}") == "pong"
        with pytest.raises(InvalidStatus):
            await ping(url, "https://evil.example")
