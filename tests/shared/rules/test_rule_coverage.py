"""Every rule id of RULES.md is listed in docs/rules.md, with a reason when it is not tested.

The handbook lives outside the repository: beside the checkout at ``../shared/docs/RULES.md``
(CI copies it there). The id list is also kept in ``docs/rules.md`` so this test still means
something in a clone without the handbook.

Whether a rule marked ``tested`` is really tested is not read from test names: the referee names
the rules each transition applies (``Verdict.rules``), and ``tests/rule_coverage.py`` fails a
whole-suite run (``CAROM_RULE_COVERAGE=1``, set by ``make test``) in which one never fired.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.rule_coverage import doc_rows

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = ROOT.parent / "shared" / "docs" / "RULES.md"

ID = re.compile(r"\*\*(R-[A-Z0-9]+(?:-[A-Z0-9]+)*)\*\*")


# The game's own rules (docs/rules.md "The game's own rules"): the handbook has no team play.
OWN = re.compile(r"^R-TEAM-\d+$")


@pytest.mark.skipif(not HANDBOOK.exists(), reason="handbook not beside the checkout")
def test_docs_list_exactly_the_handbook_rule_ids() -> None:
    handbook = list(dict.fromkeys(ID.findall(HANDBOOK.read_text(encoding="utf-8"))))
    assert handbook, "no rule ids found in RULES.md"
    assert sorted(r for r in doc_rows() if not OWN.match(r)) == sorted(handbook)
    assert not [r for r in handbook if OWN.match(r)], "the handbook took over a game's own id"


def test_the_games_own_team_rules_are_listed_and_tested() -> None:
    own = {r: status for r, (status, _) in doc_rows().items() if OWN.match(r)}
    assert sorted(own) == [f"R-TEAM-{n}" for n in range(1, 8)]
    assert set(own.values()) == {"tested"}


def test_every_rule_not_tested_is_explained() -> None:
    rows = doc_rows()
    assert len(rows) >= 50
    unexplained = [r for r, (status, why) in rows.items() if status != "tested" and len(why) < 20]
    assert unexplained == [], f"listed without a reason: {unexplained}"
