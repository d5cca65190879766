"""The ``carom`` command lists every subcommand and refuses plainly what is not built."""

from __future__ import annotations

import subprocess
import sys

import pytest

from client.cli import SUBCOMMANDS, main
from tests.imports import fresh_python_prints


def _carom(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client.cli", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_every_subcommand() -> None:
    proc = _carom("--help")
    assert proc.returncode == 0
    names = {"serve", "play", "bot", "watch", "sim", "admin", "tournament", "stats", "daily"}
    for name in names:
        assert name in proc.stdout
    assert set(SUBCOMMANDS) == names


def test_each_subcommand_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    # In this process: the entry point itself is run as a program by the tests around this one.
    for name in SUBCOMMANDS:
        with pytest.raises(SystemExit) as exited:
            main([name, "--help"])
        assert exited.value.code == 0
        assert f"carom {name}" in capsys.readouterr().out


def test_help_does_not_import_the_window_toolkit() -> None:
    code = (
        "import sys; from client.cli import build_parser; build_parser(); "
        "print('arcade' in sys.modules or 'pyglet' in sys.modules)"
    )
    assert fresh_python_prints(code) == "False"


def test_a_subcommand_imports_only_its_own_module() -> None:
    # Every window, bot and local server starts through this entry point: loading the other
    # eight subcommands' modules would cost each of them a fifth of a second.
    code = (
        "import contextlib, io, sys; from client.cli import SUBCOMMANDS, main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['sim', '--help'])\n"
        "print(sorted(n for n, (m, _) in SUBCOMMANDS.items() if m in sys.modules))"
    )
    assert fresh_python_prints(code) == "['sim']"


def test_no_command_prints_usage_and_fails() -> None:
    proc = _carom()
    assert proc.returncode == 2
    assert "usage: carom" in proc.stdout
