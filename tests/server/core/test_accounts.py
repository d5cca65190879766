"""Account names and the attempt limiter (pure, time passed in)."""

from __future__ import annotations

import argparse

import pytest

from server.core.accounts import (
    AttemptLimiter,
    accounts_from_args,
    add_account_options,
    name_key,
    name_problem,
    password_problem,
)


def test_names_that_look_alike_share_a_key() -> None:
    same = ["Bob", "BOB", "bob", "B0b", "b o b", "b_o_b", "Ｂｏｂ", "Bοb".replace("ο", "o")]
    assert {name_key(n) for n in same} == {"bob"}
    assert name_key("Bill") == name_key("B1ll") == name_key("BILL")
    assert name_key("Ann") != name_key("Anne")


def test_which_names_can_be_claimed() -> None:
    assert name_problem("Raymond Ceulemans") is None
    assert name_problem("Joé") is None and name_problem("Анна") is None
    assert name_problem("Аnn") is not None  # Cyrillic А with Latin nn: mixed alphabets
    assert name_problem("ab") is not None  # too short
    assert name_problem(" Ann") is not None
    assert name_problem("ADMIN") == "That name is reserved."
    assert name_problem("referee") == "That name is reserved."
    assert name_problem("Ann\u200b") is not None  # an invisible character
    assert name_problem("<script>") is not None
    assert name_problem("xXshitXx") == "Please choose another name."
    assert password_problem("short", "Ann") is not None
    assert password_problem("Ann", "Ann") is not None
    assert password_problem("A N N", "ann") is not None
    assert password_problem("correct horse", "Ann") is None


def test_limiter_allows_a_burst_then_makes_the_next_attempt_wait() -> None:
    lim = AttemptLimiter(limit=3, window_ms=60_000)
    for t in (0, 1_000, 2_000):
        assert lim.wait_ms("ann", t) == 0
        lim.count("ann", t)
    assert lim.wait_ms("ann", 3_000) == 57_000  # until the first attempt leaves the window
    assert lim.wait_ms("bob", 3_000) == 0  # other keys are not affected
    assert lim.wait_ms("ann", 60_000) == 0  # the window slid past the first attempt
    lim.count("ann", 60_000)
    assert lim.wait_ms("ann", 60_001) == 1_000 - 1
    lim.clear("ann")
    assert lim.wait_ms("ann", 60_001) == 0


def test_limiter_memory_is_bounded() -> None:
    lim = AttemptLimiter(limit=2, window_ms=1_000, max_keys=100)
    for i in range(1_000):
        lim.count(f"k{i}", i)  # a flood of one-off names
    assert len(lim._seen) <= 100


def test_serve_options_set_the_quick_match_and_rating_settings() -> None:
    parser = argparse.ArgumentParser()
    add_account_options(parser)
    cfg = accounts_from_args(parser.parse_args([]))
    assert cfg.rating_period_s == 7 * 86_400 and cfg.bot_after_s == 30
    args = ["--rating-period-days", "1", "--quick-match-bot-after", "5", "--quick-match-widen", "2"]
    cfg = accounts_from_args(parser.parse_args(args))
    assert (cfg.rating_period_s, cfg.bot_after_s, cfg.widen_per_s) == (86_400, 5, 2)
    with pytest.raises(SystemExit, match="--rating-period-days must be above 0"):
        accounts_from_args(parser.parse_args(["--rating-period-days", "0"]))
