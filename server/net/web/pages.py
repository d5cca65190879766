"""Routes, pages and static files of the browser client (docs/web.md)."""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Final

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.net.web.origin import origin_allowed
from shared.protocol import DISCIPLINES
from shared.table import TABLES

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"

TYPES: Final[dict[str, str]] = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
}
COMPRESSIBLE: Final = (".js", ".css", ".svg", ".txt", ".json")

# No inline script or style anywhere: the pages load their code and looks from /static/ only.
# connect-src names the page's own ws:// and wss:// origin (CSP level 3 browsers read 'self'
# as including them; older ones need it spelled out).
CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' {ws}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS: Final = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)

ROOM_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NUMBER: Final = re.compile(r"^[0-9]{1,16}$")
HOST: Final = re.compile(r"^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")

TITLES: Final[dict[str, str]] = {
    "lobby": "Carom: rooms",
    "room": "Carom: table",
    "replay": "Carom: replay",
    "player": "Carom: player",
}


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file: its bytes, gzipped bytes (when worth it), type and content hash."""

    name: str
    url: str
    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str


def load_assets(folder: Path = STATIC_DIR) -> dict[str, Asset]:
    """Every file under ``folder`` by its content-hashed URL (``/static/app.1a2b3c4d5e.js``)."""
    assets: dict[str, Asset] = {}
    if not folder.is_dir():
        return assets
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix not in TYPES:
            continue
        body = path.read_bytes()
        digest = hashlib.sha256(body).hexdigest()[:12]
        rel = path.relative_to(folder).as_posix()
        stem, dot, ext = rel.rpartition(".")
        url = f"/static/{stem}.{digest}.{ext}" if dot else f"/static/{rel}.{digest}"
        packed = gzip.compress(body, 9, mtime=0) if path.suffix in COMPRESSIBLE else None
        if packed is not None and len(packed) >= len(body):
            packed = None
        assets[url] = Asset(rel, url, body, packed, TYPES[path.suffix], f'"{digest}"')
    return assets


class WebPages:
    """Answers the HTTP side of the game port (everything but /health and /metrics)."""

    def __init__(self, origins: tuple[str, ...] = (), static: Path = STATIC_DIR) -> None:
        self.origins = origins
        self.assets = load_assets(static)
        self.by_name = {a.name: a.url for a in self.assets.values()}
        self.tables = json.dumps(
            {n: [t.length, t.width, t.ball_radius] for n, t in TABLES.items()},
            separators=(",", ":"),
        )
        self.disciplines = ",".join(DISCIPLINES)

    # The hook ------------------------------------------------------------------------------
    def respond(self, request: Request) -> Response | None:
        """None: a websocket handshake that may go on to the game. Otherwise the answer."""
        path = request.path.split("?", 1)[0]
        if _is_upgrade(request):
            if path != "/":
                return _plain(HTTPStatus.NOT_FOUND, "not found\n")
            if not origin_allowed(
                request.headers.get("Origin"), request.headers.get("Host"), self.origins
            ):
                return _plain(
                    HTTPStatus.FORBIDDEN,
                    "This page may not connect to the game server (another site's origin).\n",
                )
            return None
        if path.startswith("/static/"):
            return self._static(request, path)
        page = _route(path)
        if page is None:
            return _plain(HTTPStatus.NOT_FOUND, "not found\n")
        kind, ident = page
        return self._page(request, kind, ident)

    # Pages -----------------------------------------------------------------------------------
    def page_html(self, kind: str, ident: str) -> str:
        """The page's HTML: an empty shell the script fills in (docs/web.md)."""
        css = self.by_name.get("style.css", "")
        scripts = [self.by_name.get("vendor/msgpack.min.js", ""), self.by_name.get("app.js", "")]
        attrs = {
            "data-page": kind,
            "data-id": ident,
            "data-tables": self.tables,
            "data-disciplines": self.disciplines,
        }
        body_attrs = " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
        script_tags = "".join(
            f'<script src="{html.escape(s)}" defer></script>' for s in scripts if s
        )
        return (
            "<!doctype html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1, '
            'viewport-fit=cover">'
            f"<title>{html.escape(TITLES[kind])}</title>"
            '<meta name="color-scheme" content="dark">'
            '<link rel="icon" href="data:,">'
            f'<link rel="stylesheet" href="{html.escape(css)}">'
            f"{script_tags}</head>"
            f"<body {body_attrs}>"
            '<noscript><p class="notice">This page needs JavaScript to show the game.</p>'
            "</noscript>"
            '<div id="app"></div></body></html>\n'
        )

    def _page(self, request: Request, kind: str, ident: str) -> Response:
        body = self.page_html(kind, ident).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        host = request.headers.get("Host", "")
        ws = f"ws://{host} wss://{host}" if HOST.match(host) else ""
        headers = [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            ("ETag", etag),
            ("Content-Security-Policy", CSP.format(ws=ws).replace("'self' ;", "'self';")),
            *SECURITY_HEADERS,
        ]
        return _cached(request, etag, body, _gzip(body), headers)

    def _static(self, request: Request, path: str) -> Response:
        asset = self.assets.get(path)
        if asset is None:
            return _plain(HTTPStatus.NOT_FOUND, "not found\n")
        headers = [
            ("Content-Type", asset.content_type),
            ("Cache-Control", "public, max-age=31536000, immutable"),
            ("ETag", asset.etag),
            ("X-Content-Type-Options", "nosniff"),
        ]
        return _cached(request, asset.etag, asset.body, asset.gzipped, headers)


def _route(path: str) -> tuple[str, str] | None:
    if path in ("/", "/index.html"):
        return "lobby", ""
    parts = path.strip("/").split("/")
    if len(parts) != 2:
        return None
    kind, ident = parts
    if kind == "room" and ROOM_ID.match(ident):
        return "room", ident
    if kind == "replay" and NUMBER.match(ident):
        return "replay", ident
    if kind == "player" and ROOM_ID.match(ident):
        return "player", ident
    return None


def _is_upgrade(request: Request) -> bool:
    upgrade = request.headers.get("Upgrade", "")
    return "websocket" in upgrade.lower()


def _gzip(body: bytes) -> bytes | None:
    packed = gzip.compress(body, 6, mtime=0)
    return packed if len(packed) < len(body) else None


def _accepts_gzip(request: Request) -> bool:
    for part in request.headers.get("Accept-Encoding", "").split(","):
        token, _, params = part.strip().partition(";")
        if token.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _cached(
    request: Request,
    etag: str,
    body: bytes,
    gzipped: bytes | None,
    headers: list[tuple[str, str]],
) -> Response:
    if gzipped is not None:
        headers.append(("Vary", "Accept-Encoding"))
    match = request.headers.get("If-None-Match", "")
    if match and (match.strip() == "*" or etag in (t.strip() for t in match.split(","))):
        return Response(HTTPStatus.NOT_MODIFIED.value, "Not Modified", Headers(headers), b"")
    if gzipped is not None and _accepts_gzip(request):
        headers.append(("Content-Encoding", "gzip"))
        body = gzipped
    headers.append(("Content-Length", str(len(body))))
    return Response(HTTPStatus.OK.value, "OK", Headers(headers), body)


def _plain(status: HTTPStatus, text: str) -> Response:
    body = text.encode()
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)
