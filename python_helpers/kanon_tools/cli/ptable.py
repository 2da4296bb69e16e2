"""`python -m kanon_tools ptable`: a perturbation table for the Cell Key Method (kanon_tools.ptable)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kanon_tools import ptable
from kanon_tools.cli.types import finite_number, whole_number

# Each value's own range here (a usage error, exit 2); what depends on several (D >= js, V within
# what D and pstay allow, imax >= D + js + 1) and the open ends (V = 0, pstay 0 or 1) are checked
# by PtableParams.validate (exit 2, one line naming the argument).
max_perturbation = whole_number(1, ptable.MAX_PERTURBATION)
variance = finite_number(0.0, None, "a variance above 0 (at most D^2)")
js = whole_number(0, ptable.MAX_JS, " (k - 1 keeps every published count out of 1..k-1)")
pstay = finite_number(0.0, 1.0, "a probability strictly between 0 and 1")
imax = whole_number(2, ptable.MAX_IMAX)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ptable",
        help="a perturbation table (CSV seed) for noise={'mode': 'cell_key'}: unbiased, bounded, no 1..js",
        description=ptable.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--max-perturbation", "-D", type=max_perturbation, required=True, metavar="D",
                        help=f"the largest |v| a count may move by, 1 to {ptable.MAX_PERTURBATION}")
    parser.add_argument("--variance", "-V", type=variance, required=True, metavar="V",
                        help="the variance of v at every count that can have it (above 0, at most D^2)")
    parser.add_argument("--js", type=js, required=True,
                        help="no count is ever published as 1..js (use k - 1 or more); at most D")
    parser.add_argument("--pstay", type=pstay, default=None,
                        help="the probability that a count is published as it is (default: what maximizes entropy)")
    parser.add_argument("--imax", type=imax, default=None,
                        help="the last count of the table, which stands for every larger one (default and least: "
                             "D + js + 1)")
    parser.add_argument("--output", "-o", type=Path, required=True, metavar="FILE.csv",
                        help="where to write the seed (columns i, j, v, p, key_from, key_to)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = ptable.PtableParams(args.max_perturbation, args.variance, args.js, args.pstay, args.imax)
    return ptable.command(params, args.output)
