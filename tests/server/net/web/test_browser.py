"""The browser client in a real headless Chromium against a real server on loopback: a whole
match against a bot played through the page's own controls, spectators, a reload mid-match,
names with markup, another site's page, a server that goes away (issue 22)."""

from __future__ import annotations

import asyncio
import http.server
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from client.session import Session
from shared.protocol import to_client as tc
from tests.server.net.web.conftest import LiveServer

# One browser test at a time (one xdist worker, --dist loadgroup in pyproject.toml): each runs
# Chromium, a server and often a bot, and the suite shares two cores with timing tests.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("chromium")]


def _by() -> Any:
    from selenium.webdriver.common.by import By

    return By


def wait(driver: Any, cond: Callable[[Any], Any], timeout: float = 30) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # The page redraws as messages come: an element found a moment ago may be gone when its
    # text is read. That is the page changing, not failing: look again.
    stale = (StaleElementReferenceException,)
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=stale).until(cond)


# One script per look (a WebDriver command is a round trip through chromedriver and the
# browser's own process: looking with a single command keeps the waits cheap).
_SHOWN = """
const shown = (css) => {
  const e = document.querySelector(css);
  return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden"
    ? e : null;
};
"""
_LOOK = (
    _SHOWN
    + """
const e = shown(arguments[0]);
return e ? [true, !e.disabled, e.innerText] : [false, false, ""];
"""
)


def _look(driver: Any, css: str) -> tuple[bool, bool, str]:
    shown, usable, text = driver.execute_script(_LOOK, css)
    return bool(shown), bool(usable), str(text)


def text(driver: Any, css: str) -> str:
    """The first match's text as shown on the page ("" when hidden or absent)."""
    return _look(driver, css)[2]


def shown(driver: Any, css: str) -> bool:
    return _look(driver, css)[0]


def usable(driver: Any, css: str) -> bool:
    return _look(driver, css)[1]


def create_room(live: LiveServer, discipline: str = "straight_rail", **options: Any) -> str:
    async def make() -> str:
        async with Session(live.ws, "Host", remember_identity=False) as s:
            return await s.create_room(discipline, **options)

    return live.run(make())


def set_name(driver: Any, live: LiveServer, name: str) -> None:
    """The name a player types in the lobby, kept by the browser for the next pages."""
    driver.get(live.http + "/")
    field = wait(driver, lambda d: d.find_element(_by().NAME, "player-name"))
    from selenium.webdriver.common.keys import Keys

    field.clear()
    field.send_keys(name + Keys.TAB)  # leaving the field commits it, as a person does
    wait(driver, lambda d: d.execute_script("return localStorage.getItem('carom.name')") == name)


def sit_down(driver: Any, live: LiveServer, room_id: str) -> None:
    driver.get(f"{live.http}/room/{room_id}")
    wait(driver, lambda d: usable(d, "#sit"))
    driver.find_element(_by().ID, "sit").click()
    wait(driver, lambda d: "(you)" in text(d, ".hud"))


SOFTEST = 27  # ArrowDown presses from the page's 3.0 m/s to its softest stroke, 0.3 m/s


def aim_and_strike(driver: Any, n: int) -> None:
    """Drag on the table to aim, fine-tune with the arrow keys, set the power with the keys
    and strike: with the button, or with the space bar every other stroke."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    by = _by()
    canvas = driver.find_element(by.CSS_SELECTOR, "canvas.table")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    size = canvas.size
    dx = int(size["width"] * (0.3 if n % 2 == 0 else -0.25))
    dy = int(size["height"] * (0.1 if n % 3 else -0.15))
    chain = ActionChains(driver).move_to_element_with_offset(canvas, dx, dy)
    chain.click_and_hold().move_by_offset(4, 2).release().perform()
    keys = ActionChains(driver)
    for _ in range(SOFTEST):
        keys.send_keys(Keys.ARROW_DOWN)  # the softest stroke: a quick match
    keys.send_keys(Keys.ARROW_LEFT).perform()
    if n % 2:
        ActionChains(driver).send_keys(Keys.SPACE).perform()
    else:
        driver.find_element(by.ID, "strike").click()
    wait(driver, lambda d: not usable(d, "#strike"), 15)


_NEXT_THING = (
    _SHOWN
    + """
if (shown(".sheet")) return "over";
const b = shown("#break-me");
if (b && !b.disabled) return "break";
const s = shown("#strike");
return s && !s.disabled ? "strike" : "";
"""
)


def play_to_the_end(driver: Any, timeout: float = 240) -> int:
    """Play every stroke the page offers until the scoresheet shows; returns the strokes."""
    strokes = 0

    def next_thing(d: Any) -> str | bool:
        what = d.execute_script(_NEXT_THING)
        return str(what) if what else False

    while True:
        what = wait(driver, next_thing, timeout)
        if what == "over":
            return strokes
        if what == "break":
            driver.find_element(_by().ID, "break-me").click()
            wait(driver, lambda d: not shown(d, "#break-me"), 15)
            continue
        aim_and_strike(driver, strokes)
        strokes += 1


def sheet_numbers(driver: Any) -> list[list[str]]:
    rows = driver.find_elements(_by().CSS_SELECTOR, ".sheet table.scoresheet tbody tr")
    return [[c.text for c in r.find_elements(_by().CSS_SELECTOR, "td")] for r in rows]


def spectate_until_over(live: LiveServer, room_id: str) -> Future[tc.GameOver]:
    """A headless client watching the room until its ``game_over``."""

    async def watch() -> tc.GameOver:
        async with Session(live.ws, "Watcher", remember_identity=False) as s:
            got = asyncio.get_running_loop().create_future()

            def listener(msg: object) -> None:
                if isinstance(msg, tc.GameOver) and not got.done():
                    got.set_result(msg)

            s.listeners.append(listener)
            await s.spectate(room_id)
            over: tc.GameOver = await asyncio.wait_for(got, 300)
            return over

    return asyncio.run_coroutine_threadsafe(watch(), live.loop)


def test_a_browser_player_plays_a_whole_match_against_a_bot_and_spectators_agree(
    live: LiveServer, browsers: Callable[..., Any], bots: Callable[..., Any]
) -> None:
    player = browsers()
    watcher = browsers(width=900, height=760)
    room = create_room(live, "straight_rail", distance=1, innings_limit=1, shot_clock_s=60)
    set_name(player, live, "Ada")
    sit_down(player, live, room)
    watcher.get(f"{live.http}/room/{room}")
    wait(watcher, lambda d: "Ada" in text(d, ".hud"))
    headless = spectate_until_over(live, room)
    bots(live.ws, room, name="Robot")
    wait(player, lambda d: "Robot" in text(d, ".hud"))
    wait(watcher, lambda d: "Robot" in text(d, ".hud") and "2 watching" in text(d, "header"))
    # The player sat down before anyone watched: the count reaches the player's page too.
    wait(player, lambda d: "2 watching" in text(d, "header"))
    player.find_element(_by().NAME, "chat").send_keys("Good luck!\n")
    wait(watcher, lambda d: "Ada: Good luck!" in text(d, ".chatlines"))

    strokes = play_to_the_end(player)
    assert strokes >= 1  # at least the lag, through the page's controls
    crashes = [e["message"] for e in player.get_log("browser") if "Uncaught" in e["message"]]
    assert crashes == []

    over = headless.result(60)
    wait(watcher, lambda d: shown(d, ".sheet"), 60)
    seen_by_player = sheet_numbers(player)
    seen_by_watcher = sheet_numbers(watcher)
    expected = [
        [str(line.points), str(line.innings), f"{line.average:.3f}", str(line.high_run)]
        for line in over.scoresheet.match
    ]
    assert seen_by_player == expected
    assert seen_by_watcher == expected
    sheet = text(player, ".sheet")
    assert "Scoresheet" in sheet
    assert "Ada" in sheet and "Robot" in sheet
    assert ("wins" in sheet) or ("draw" in sheet)
    assert "not rated" in sheet or "Your rating" in sheet
    assert "_" not in sheet  # plain words, no codes

    # The match's replay, from the scoresheet, and the player's profile with it.
    player.find_element(_by().LINK_TEXT, "Watch the replay").click()
    wait(
        player,
        lambda d: "Ada vs Robot" in text(d, "main h2") or "Robot vs Ada" in text(d, "main h2"),
    )
    wait(player, lambda d: "Stroke 1 of" in text(d, ".turn"))
    player.get(live.http + "/")
    wait(player, lambda d: "Playing as" in text(d, "header"))
    player.find_element(_by().CSS_SELECTOR, "header a.me").click()
    wait(player, lambda d: text(d, "main h2") == "Ada")
    wait(player, lambda d: "Robot" in text(d, "main"))  # the last match, against the bot


def test_a_reload_mid_match_takes_the_seat_back(
    live: LiveServer, browsers: Callable[..., Any], bots: Callable[..., Any]
) -> None:
    player = browsers()
    room = create_room(live, "straight_rail", distance=1, innings_limit=1, shot_clock_s=120)
    set_name(player, live, "Bea")
    sit_down(player, live, room)
    bots(live.ws, room, name="Robot")
    wait(player, lambda d: usable(d, "#strike"))  # the lag: the match is on
    url = player.current_url
    player.refresh()
    assert player.current_url == url
    assert "token" not in url
    wait(player, lambda d: "Bea (you)" in text(d, ".hud"))
    assert wait(player, lambda d: usable(d, "#strike"))  # still my lag stroke to play
    aim_and_strike(player, 1)
    # The stroke was taken from the seat won back: the lag goes on with it.
    wait(
        player,
        lambda d: (
            "lag" in text(d, ".call").lower()
            or any(
                words in text(d, ".turn")
                for words in ("Waiting for the other lag stroke", "rolling", "won the lag", "play")
            )
        ),
        60,
    )
    # The seat token stays in the browser's storage, never in the address or the page.
    token = player.execute_script(f"return localStorage.getItem('carom.seat.{room}')")
    assert token
    assert token not in player.page_source
    assert token not in player.current_url


def test_names_and_chat_with_markup_are_shown_as_text(
    live: LiveServer, browsers: Callable[..., Any]
) -> None:
    marked = "<b>Eve</b><img src=x>"
    player = browsers()
    room = create_room(live)
    set_name(player, live, marked)
    sit_down(player, live, room)
    wait(player, lambda d: marked in text(d, ".hud"))
    player.find_element(_by().NAME, "chat").send_keys("<i>hi</i> & <script>x()</script>\n")
    wait(player, lambda d: "<i>hi</i> & <script>x()</script>" in text(d, ".chatlines"))
    by = _by()
    assert player.find_elements(by.CSS_SELECTOR, ".hud b, .hud img, .chatlines i") == []
    assert player.find_elements(by.CSS_SELECTOR, ".chatlines script, .hud script") == []
    # The lobby lists the room with the name as text too.
    other = browsers()
    other.get(live.http + "/")
    wait(other, lambda d: marked in text(d, "table.rooms"))
    assert other.find_elements(by.CSS_SELECTOR, "table.rooms img, table.rooms b") == []


def test_a_practice_table_from_the_lobby(live: LiveServer, browsers: Callable[..., Any]) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    player = browsers()
    set_name(player, live, "Cy")
    by = _by()
    form = player.find_element(by.ID, "new-table")
    Select(form.find_element(by.NAME, "new-discipline")).select_by_value("one_cushion")
    form.find_element(by.NAME, "practice").click()
    form.find_element(by.CSS_SELECTOR, "button[type=submit]").click()
    wait(player, lambda d: "/room/" in d.current_url or text(d, ".status"))
    assert "/room/" in player.current_url, text(player, ".status")
    wait(player, lambda d: "Cy (you)" in text(d, ".hud") and usable(d, "#strike"))
    assert "One-cushion" in text(player, ".hud")
    before = text(player, ".controls output.aimout")
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(player).send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT).perform()
    wait(player, lambda d: text(d, ".controls output.aimout") != before)  # the keys aim
    softer = ActionChains(player)
    for _ in range(SOFTEST):
        softer.send_keys(Keys.ARROW_DOWN)  # the softest stroke: a short roll
    softer.send_keys(Keys.SPACE).perform()
    wait(player, lambda d: "rolling" in text(d, ".turn"))
    wait(player, lambda d: text(d, ".turn") == "Your shot." and text(d, ".call") != "", 60)
    assert "Innings 1" in text(player, ".hud")


def test_a_private_table_asks_for_its_password(
    live: LiveServer, browsers: Callable[..., Any]
) -> None:
    room = create_room(live, "three_cushion", private=True, password="chalk and cue")
    browser = browsers()
    browser.get(f"{live.http}/room/{room}")
    field = wait(
        browser, lambda d: shown(d, "form.password") and d.find_element(_by().NAME, "password")
    )
    assert "private" in text(browser, "form.password")
    field.send_keys("wrong guess\n")
    wait(browser, lambda d: "not right" in text(d, ".message"))
    field.clear()
    field.send_keys("chalk and cue\n")
    wait(browser, lambda d: not shown(d, "form.password") and shown(d, "#sit"))
    assert "1 watching" in text(browser, "header")


@pytest.fixture
def other_site() -> Iterator[str]:
    """Another origin: a plain page on another port that tries to open the game's socket."""
    page = b"""<!doctype html><title>other</title><body><script>
      const port = new URLSearchParams(location.search).get("port");
      const ws = new WebSocket("ws://127.0.0.1:" + port + "/");
      ws.onopen = () => { document.title = "opened"; };
      ws.onerror = () => { document.title = "refused"; };
    </script></body>"""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *_: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def test_a_page_of_another_origin_cannot_open_the_socket(
    live: LiveServer, browsers: Callable[..., Any], other_site: str
) -> None:
    browser = browsers()
    browser.get(f"{other_site}/?port={live.port}")
    wait(browser, lambda d: d.title in ("opened", "refused"))
    assert browser.title == "refused"
    # The same browser on the game's own page connects.
    browser.get(live.http + "/")
    wait(browser, lambda d: "Playing as" in text(d, "header"))


def test_the_page_says_so_when_the_server_goes_away(
    live: LiveServer, browsers: Callable[..., Any]
) -> None:
    browser = browsers()
    room = create_room(live)
    browser.get(f"{live.http}/room/{room}")
    wait(browser, lambda d: "watching" in text(d, "header") and shown(d, "#sit"))
    live.stop()
    wait(
        browser,
        lambda d: "Reconnecting" in text(d, ".banner") or "cannot be reached" in text(d, ".banner"),
    )


def test_the_page_says_so_when_the_server_is_full(
    tmp_path: Path, browsers: Callable[..., Any]
) -> None:
    live = LiveServer(tmp_path, max_connections=1)
    try:

        async def hold() -> Session:
            s = Session(live.ws, "First", remember_identity=False, reconnect=False)
            await s.connect()
            return s

        first = live.run(hold())
        browser = browsers()
        browser.get(live.http + "/")
        wait(browser, lambda d: "full" in text(d, ".banner"))
        live.run(first.close())
        wait(browser, lambda d: not shown(d, ".banner"), 30)
        wait(browser, lambda d: "Playing as" in text(d, "header"))
    finally:
        live.close()


def test_the_table_fits_a_phone_in_portrait(live: LiveServer, browsers: Callable[..., Any]) -> None:
    phone = browsers(width=390, height=844, mobile=True)
    room = create_room(live)
    phone.get(f"{live.http}/room/{room}")
    wait(phone, lambda d: shown(d, "#sit"))
    canvas = phone.find_element(_by().CSS_SELECTOR, "canvas.table")
    width = phone.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390  # nothing runs off the side of the screen
    assert canvas.size["height"] > canvas.size["width"]  # the table stands upright


async def lag_and_break(sessions: list[Session]) -> None:
    """The first players lag (Ann short: she loses), then Dot, Bob's partner, lets side 1
    break (R-TEAM-1)."""
    from shared.protocol import to_server as ts
    from shared.protocol.views import CueParams

    ann, bob, _cid, dot = sessions
    heard = asyncio.create_task(dot.wait_for(lambda m: isinstance(m, tc.LagResult), 30))
    await asyncio.sleep(0)  # listening before the lag strokes go out
    await ann.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))
    await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
    lag = await heard
    assert isinstance(lag, tc.LagResult) and lag.winner == 1
    await asyncio.sleep(max(0.0, ((lag.rest_ms or 0) - dot.server_now_ms()) / 1000) + 0.1)
    await dot.choose_break("me")


def test_the_page_shows_a_doubles_room_with_both_partners_of_each_side(
    live: LiveServer, browsers: Callable[..., Any]
) -> None:
    """R-TEAM-1: the lobby lists the sides as partners, the room page names all four players."""
    room = create_room(live, "three_cushion", team_mode="doubles")
    sessions: list[Session] = []

    async def seat(name: str) -> None:
        s = Session(live.ws, name, remember_identity=False)
        await s.connect()
        sessions.append(s)
        await s.join(room)

    async def close_all() -> None:
        for s in sessions:
            await s.close()

    try:
        for name in ("Ann", "Bob", "Cid", "Dot"):
            live.run(seat(name))
        page = browsers()
        page.get(live.http + "/")
        wait(page, lambda d: "Ann & Cid vs Bob & Dot" in text(d, "table"))
        page.get(f"{live.http}/room/{room}")
        wait(page, lambda d: "Ann · Cid" in text(d, ".hud") and "Bob · Dot" in text(d, ".hud"))
        live.run(lag_and_break(sessions))
        # Side 1 breaks by its first player: the page names him, and marks him on the board.
        wait(page, lambda d: "Bob to play." in text(d, "body"), 40)
        assert "▸ Bob" in text(page, ".hud")
        crashes = [e["message"] for e in page.get_log("browser") if "Uncaught" in e["message"]]
        assert crashes == []
    finally:
        live.run(close_all())


def _differing_regions(before: bytes, after: bytes) -> list[tuple[int, int]]:
    """The width and height of each patch of pixels that differ between two PNGs of the same
    size (four-connected, on a grid of 2-pixel cells to keep the walk short)."""
    import io

    from PIL import Image, ImageChops

    a = Image.open(io.BytesIO(before)).convert("RGB")
    b = Image.open(io.BytesIO(after)).convert("RGB")
    assert a.size == b.size
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 24 else 0)
    w, h = (a.size[0] + 1) // 2, (a.size[1] + 1) // 2
    cells = diff.resize((w, h), Image.Resampling.BOX).load()
    assert cells is not None
    seen: set[tuple[int, int]] = set()
    regions = []
    for y in range(h):
        for x in range(w):
            if cells[x, y] == 0 or (x, y) in seen:
                continue
            todo, xs, ys = [(x, y)], [], []
            seen.add((x, y))
            while todo:
                cx, cy = todo.pop()
                xs.append(cx)
                ys.append(cy)
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < w and 0 <= ny < h and (nx, ny) not in seen and cells[nx, ny]:
                        seen.add((nx, ny))
                        todo.append((nx, ny))
            regions.append((2 * (max(xs) - min(xs) + 1), 2 * (max(ys) - min(ys) + 1)))
    return regions


def test_a_rolling_ball_leaves_no_trail_on_the_table(
    live: LiveServer, browsers: Callable[..., Any]
) -> None:
    """While a stroke rolls, the page draws again only the squares the balls leave and enter.
    Mid-stroke, the table differs from the table at rest only in ball-sized patches (where the
    balls were and where they are), never along the way a ball has come."""
    from shared.protocol.views import CueParams
    from shared.table import table_by_name

    player = Session(live.ws, "Ada", remember_identity=False)

    async def practice() -> str:
        await player.connect()
        room = await player.create_room("three_cushion", practice=True)
        await player.join(room)
        return room

    room = live.run(practice())
    try:
        page = browsers()
        page.get(f"{live.http}/room/{room}")
        wait(page, lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
        canvas = page.find_element(_by().CSS_SELECTOR, "canvas.table")
        at_rest = canvas.screenshot_as_png
        table = table_by_name("match")
        # The page fits the table and its two 0.13 m rails across the canvas (app.js).
        diameter = 2 * table.ball_radius * canvas.size["width"] / (table.length + 2 * 0.13)
        page.execute_script("caromStats.frames.length = 0")
        cue = CueParams(direction=33.0, speed=2.0, tip_x=0.3, tip_y=0.2, elevation=0.0)
        live.run(player.stroke(cue))
        # Well into the stroke: the balls have travelled many times their size.
        wait(page, lambda d: d.execute_script("return caromStats.frames.length") > 60)
        rolling = canvas.screenshot_as_png
        assert text(page, ".turn") == "The balls are rolling."
        regions = _differing_regions(at_rest, rolling)
        assert regions, "the balls moved: the table cannot look the same"
        assert all(max(w, h) <= 4 * diameter for w, h in regions), (regions, diameter)
        wait(page, lambda d: text(d, ".turn") != "The balls are rolling.", 60)
        assert [e for e in page.get_log("browser") if "Uncaught" in e["message"]] == []
    finally:
        live.run(player.close())


def test_players_leaving_as_the_last_stroke_rolls_are_not_shown_as_lost(
    live: LiveServer, browsers: Callable[..., Any]
) -> None:
    """The match's end is known when its last stroke is played, before the balls stop; bots
    leave then. While those balls roll, the page watching must not say the players lost their
    connection (a forfeit countdown under each name), only show the result when they stop."""
    from shared.protocol import to_server as ts
    from shared.protocol.views import CueParams

    room = create_room(live, "straight_rail", distance=1, innings_limit=1, shot_clock_s=60)
    ann = Session(live.ws, "Ann", remember_identity=False)
    bob = Session(live.ws, "Bob", remember_identity=False)
    left = threading.Event()

    async def seat() -> None:
        for s in (ann, bob):
            await s.connect()
            await s.join(room)

    async def turn_of(s: Session, shooter: int) -> None:
        await s.wait_for(lambda m: isinstance(m, tc.Turn) and m.shooter == shooter, 40)

    async def lag_and_break() -> None:
        # Ann lags short and loses (R-LAG-2); Bob breaks with a soft stroke, and Ann is next.
        heard = asyncio.create_task(bob.wait_for(lambda m: isinstance(m, tc.LagResult), 30))
        await asyncio.sleep(0)
        await ann.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))
        await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
        lag = await heard
        assert isinstance(lag, tc.LagResult) and lag.winner == 1
        await asyncio.sleep(max(0.0, ((lag.rest_ms or 0) - bob.server_now_ms()) / 1000) + 0.1)
        breaking = asyncio.create_task(turn_of(bob, 1))
        await asyncio.sleep(0)
        await bob.choose_break("me")
        await breaking
        next_turn = asyncio.create_task(turn_of(ann, 0))
        await asyncio.sleep(0)
        await bob.stroke(CueParams(direction=90.0, speed=0.3))
        await next_turn

    async def last_stroke_then_leave() -> None:
        # Ann's inning is the last of an innings limit of one: her stroke ends the match. Both
        # leave as soon as they hear so, as the bots do, while her balls still roll.
        over = asyncio.create_task(ann.wait_for(lambda m: isinstance(m, tc.GameOver), 30))
        await asyncio.sleep(0)
        await ann.stroke(CueParams(direction=40.0, speed=0.4))
        await over
        await ann.close()
        await bob.close()
        left.set()

    try:
        live.run(seat())
        live.run(lag_and_break())
        # A phone, opened for the last stroke only (a page animating costs CPU).
        page = browsers(width=390, height=844, mobile=True)
        page.get(f"{live.http}/room/{room}")
        wait(page, lambda d: "Ann to play." in text(d, "body"), 40)
        ending = asyncio.run_coroutine_threadsafe(last_stroke_then_leave(), live.loop)
        seen_after_leaving: list[str] = []
        wait(page, lambda d: text(d, ".turn") == "The balls are rolling.", 20)
        while text(page, ".turn") == "The balls are rolling.":
            if left.is_set():
                seen_after_leaving.append(text(page, ".hud"))
            time.sleep(0.1)
        ending.result(30)
        assert seen_after_leaving, "the players should have left while the balls rolled"
        assert not any("Lost the connection" in hud for hud in seen_after_leaving)
        wait(page, lambda d: shown(d, ".sheet"), 30)
        assert "Lost the connection" not in text(page, ".hud")
        assert "Run " not in text(page, ".hud")  # nobody is at the table any more
        # The scoresheet fits the phone's width, its last column ("High run") included.
        edges = page.execute_script(
            "const t = document.querySelector('.sheet table.scoresheet');"
            "const last = t.querySelector('thead th:last-child');"
            "return [last.getBoundingClientRect().right, t.closest('.card')"
            ".getBoundingClientRect().right, document.documentElement.clientWidth]"
        )
        assert edges[0] <= edges[1] <= edges[2], edges
    finally:
        live.run(ann.close())
        live.run(bob.close())


def test_a_page_left_for_another_stops_watching_and_watches_again_on_back(
    live: LiveServer, browsers: Callable[..., Any]
) -> None:
    """The browser may keep a page the visitor left in its back/forward cache, socket and all:
    the room must not go on counting a spectator who went to the lobby, and coming back with
    the Back button watches again."""
    import urllib.request

    def spectators() -> int:
        with urllib.request.urlopen(f"{live.http}/metrics", timeout=10) as r:
            lines = r.read().decode().splitlines()
        return int(next(line for line in lines if line.startswith("carom_spectators ")).split()[1])

    room = create_room(live, "straight_rail")
    page = browsers()
    page.get(f"{live.http}/room/{room}")
    wait(page, lambda d: "1 watching" in text(d, "header"))
    assert spectators() == 1
    page.get(f"{live.http}/")
    wait(page, lambda d: "Tables" in text(d, "main"))
    wait(page, lambda d: spectators() == 0, 10)
    page.back()
    # The page comes back as it was left, "1 watching" included: count on the server's side.
    wait(page, lambda d: spectators() == 1, 20)
    wait(page, lambda d: "1 watching" in text(d, "header"))
    assert [e for e in page.get_log("browser") if e["level"] == "SEVERE"] == []
