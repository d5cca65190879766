"""``python -m server``: the same as ``carom serve``."""

from __future__ import annotations

import argparse
import sys

from server.cli import configure, run

if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m server", description="Run the carom server.")
    configure(parser)
    sys.exit(run(parser.parse_args()))
