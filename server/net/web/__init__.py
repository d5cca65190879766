"""The browser client's pages and files, served on the websocket's own port (docs/web.md).

``WebPages.respond`` is called from the gateway's ``process_request`` hook for every request
that is not ``/health`` or ``/metrics``: a websocket upgrade on ``/`` is let through (``None``)
when its Origin is allowed, and every other GET is answered here: the pages (``/``,
``/room/<id>``, ``/replay/<id>``, ``/player/<id>``), the static files under
``/static/<name>.<hash>.<ext>`` (content-hashed, cached for a year), or 404.

The files are built by ``make web`` (web/build.mjs) and vendored in ``server/net/web/static/``:
nothing here needs Node at run time.
"""

from __future__ import annotations

from server.net.web.origin import origin_allowed
from server.net.web.pages import WebPages

__all__ = ["WebPages", "origin_allowed"]
