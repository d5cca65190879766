"""``--fork-workers``: the xdist workers are forked from the controller once it has imported every
test module, instead of started as new interpreters that each import them again.

Each of a parallel run's ten workers used to import the whole suite to collect it (pytest, the
game's packages, arcade, hypothesis, the engines' clients): about 2.7 s of CPU each, all at the
run's start, on two cores. Collecting again in a process that has imported everything takes
0.7 s. So the controller imports the test modules and conftests once (what a worker's
collection would import), then each worker is a fork of it that runs execnet's bootstrap, as
``python -u -c "import sys;exec(eval(sys.stdin.readline()))"`` would: its collection finds the
modules already loaded and only builds the test items.

The child is made to look like a fresh interpreter where it matters: every descriptor but the
two pipes and stderr is closed (what ``exec`` does to descriptors not meant to be inherited: a
worker holding another worker's pipe, or the shared PostgreSQL's start-up pipes, would keep
them from ever reaching their end), the standard streams are new, signals have their default
handlers, the root logger has no handler, ``__main__`` and ``sys.argv`` are those of
``python -c``. Python reseeds ``random``
and re-creates its locks in a forked child itself.

The controller knows its forked workers' pids (``forked_workers``): their command line is the
controller's, so ``tests/stopping.py`` cannot find them by it.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import importlib
import io
import logging
import os
import signal
import sys
import traceback
import types
from pathlib import Path
from typing import Any

import pytest
from execnet.gateway_base import Popen2IO

_forked: list[int] = []


def forked_workers() -> list[int]:
    """The pids of the workers this process forked (none where it forked none)."""
    return list(_forked)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fork-workers",
        action="store_true",
        help="fork the xdist workers from the controller once it has imported the test modules",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    if not config.getoption("fork_workers"):
        return
    from execnet import gateway_io

    # What Python's documentation of gc.freeze() advises before forking without exec: no
    # collection while the modules load (it would leave freed holes in the pages the workers
    # share), then every object moved where a worker's collections never touch it (a
    # collection writes to each object it examines, and the page under it is then copied).
    gc.disable()
    try:
        import_test_modules(config)
        gc.freeze()
    finally:
        gc.enable()  # the controller's later objects are its own pages
    original = gateway_io.create_io

    def create_io(spec: Any, execmodel: Any) -> Any:
        if spec.popen and not spec.python and not spec.via:
            return ForkedIO(execmodel)
        return original(spec, execmodel)

    gateway_io.create_io = create_io


def import_test_modules(config: pytest.Config) -> None:
    """Import what a worker's collection imports: every conftest and test module of the run's
    paths, under the names pytest gives them (the root directory first on ``sys.path``)."""
    root = config.rootpath
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if config.args:  # as given on the command line: paths, or node ids (path::test)
        here = config.invocation_params.dir
        paths = [here / arg.split("::", 1)[0] for arg in config.args]
    else:
        paths = [root / p for p in (config.getini("testpaths") or ["."])]
    patterns = ["conftest.py", *config.getini("python_files")]  # what pytest collects
    files: list[Path] = []
    for top in paths:
        if top.is_file():
            files.append(top)
            continue
        for path in sorted(top.rglob("*.py")):
            if any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns):
                files.append(path)
    for path in files:
        # A module outside the root directory is left to the workers; one that does not import
        # here fails in their collection too, with pytest's own report: nothing to say twice.
        with contextlib.suppress(Exception):
            relative = path.resolve().relative_to(root).with_suffix("")
            importlib.import_module(".".join(relative.parts))
    sys.stdout.flush()
    sys.stderr.flush()


class ForkedIO(Popen2IO):
    """execnet's ``Popen2IOMaster`` for a forked worker: its pipes are read and written by
    execnet's own ``Popen2IO``; what execnet asks of the process is to wait for it or kill it."""

    def __init__(self, execmodel: Any) -> None:
        child_in, parent_out = os.pipe()  # (read end, write end)
        parent_in, child_out = os.pipe()
        # Whatever the controller has buffered must not be written twice (the child's streams
        # are new, but a flush at the child's exit would repeat it).
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: nothing below returns
            _run_worker(child_in, child_out)
        os.close(child_in)
        os.close(child_out)
        _forked.append(pid)
        self.pid = pid
        self.returncode: int | None = None
        super().__init__(os.fdopen(parent_out, "wb"), os.fdopen(parent_in, "rb"), execmodel)

    def wait(self) -> int | None:
        if self.returncode is None:
            try:
                _, status = os.waitpid(self.pid, 0)
            except OSError:
                return None
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)


def _run_worker(stdin_fd: int, stdout_fd: int) -> None:
    code = 1
    try:
        os.dup2(stdin_fd, 0)
        os.dup2(stdout_fd, 1)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        gc.enable()
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False), line_buffering=True, write_through=True
        )
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False), line_buffering=True, write_through=True
        )
        # The controller's log handlers (pytest's, for its own session) would print the
        # worker's records on the terminal; a new interpreter has none.
        for handler in list(logging.root.handlers):
            logging.root.removeHandler(handler)
        logging.root.setLevel(logging.WARNING)
        sys.argv = ["-c"]
        main = types.ModuleType("__main__")
        sys.modules["__main__"] = main
        line = bytearray()
        while not line.endswith(b"\n"):  # one byte at a time: nothing past the line is taken
            byte = os.read(0, 1)
            if not byte:
                os._exit(1)
            line += byte
        exec(eval(line.decode()), main.__dict__)  # execnet's bootstrap, as `python -c` runs it
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
