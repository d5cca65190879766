"""Every rule id of RULES.md is tested here or listed in docs/rules.md with its reason.

The handbook lives outside the repository: beside the checkout at ``../shared/docs/RULES.md``
(CI copies it there). The id list is also kept in ``docs/rules.md`` so this test still means
something in a clone without the handbook.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = ROOT.parent / "shared" / "docs" / "RULES.md"
DOC = ROOT / "docs" / "rules.md"
TESTS = Path(__file__).resolve().parent

ID = re.compile(r"\*\*(R-[A-Z0-9]+(?:-[A-Z0-9]+)*)\*\*")
ROW = re.compile(r"^\| (R-[A-Z0-9-]+) \| (tested|elsewhere|not online) \| (.*) \|$", re.M)


def doc_rows() -> dict[str, tuple[str, str]]:
    return {m[1]: (m[2], m[3].strip()) for m in ROW.finditer(DOC.read_text(encoding="utf-8"))}


def collected_names() -> str:
    """Every test function name and parametrize id of this directory, one per line."""
    names: list[str] = []
    for path in sorted(TESTS.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        names += re.findall(r"def (test_\w+)", text)
        names += re.findall(r'id="([^"]+)"', text)
    return "\n".join(names)


def named(rule: str, names: str) -> bool:
    pattern = "(" + re.escape(rule) + "|" + re.escape(rule.replace("-", "_")) + ")(?![A-Za-z0-9])"
    return re.search(pattern, names) is not None


@pytest.mark.skipif(not HANDBOOK.exists(), reason="handbook not beside the checkout")
def test_docs_list_exactly_the_handbook_rule_ids() -> None:
    handbook = list(dict.fromkeys(ID.findall(HANDBOOK.read_text(encoding="utf-8"))))
    assert handbook, "no rule ids found in RULES.md"
    assert sorted(doc_rows()) == sorted(handbook)


def test_every_rule_is_tested_or_explained() -> None:
    rows = doc_rows()
    assert len(rows) >= 50
    names = collected_names()
    untested = [r for r, (status, _) in rows.items() if status == "tested" and not named(r, names)]
    assert untested == [], f"marked tested but no test names them: {untested}"
    unexplained = [r for r, (status, why) in rows.items() if status != "tested" and len(why) < 20]
    assert unexplained == [], f"listed without a reason: {unexplained}"
