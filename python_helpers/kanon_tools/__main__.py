"""`python -m kanon_tools <command>`: the command line of kanon_tools.cli."""

from __future__ import annotations

import sys

from kanon_tools.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
