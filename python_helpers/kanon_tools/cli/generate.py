"""`python -m kanon_tools generate`: the example data's generator (kanon_tools.dev.generate)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kanon_tools.cli.types import count, whole_number
from kanon_tools.dev import generate

# argparse types: a value out of range is a usage error (exit 2) naming the range. The floor on
# --events (the planted loans) is checked after parsing, by GeneratorConfig.validate (exit 2, one line).
events_count = count(1)  # a positive count: 5000, 5_000, 10k, 10M or 1e7
year = whole_number(generate.MIN_YEAR, generate.MAX_YEAR)
seed = whole_number(0)
patrons = count(generate.PLANTED_PATRONS, " (the planted thin cells' patrons)")
titles = count(generate.CATALOG_TITLES, " (the built-in catalog)")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="deterministic library-circulation events (+ hierarchies) to CSV, DuckDB, Postgres, Parquet",
        description=generate.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    data = parser.add_argument_group("what to generate (the same values give the same rows)")
    data.add_argument(
        "--events",
        type=events_count,
        default=generate.DEFAULT_EVENTS,
        help=f"number of loans, at least {generate.PLANTED_EVENTS} (the planted ones); 5000, 10k, 1.5M, 1e7 "
        "(default %(default)s)",
    )
    data.add_argument("--seed", type=seed, default=generate.DEFAULT_SEED,
                      help="random seed, a whole number >= 0 (default %(default)s)")
    data.add_argument("--key", default=generate.DEFAULT_KEY,
                      help="HMAC key for patron tokens (default: the public demo key)")
    data.add_argument("--year", type=year, default=generate.DEFAULT_YEAR,
                      help=f"year of borrowed_at, {generate.MIN_YEAR} to {generate.MAX_YEAR} (default %(default)s)")
    data.add_argument(
        "--profile",
        choices=generate.PROFILES,
        default=generate.DEFAULT_PROFILE,
        # % doubled: argparse formats help with %-style placeholders
        help="the workload's shape: "
        + "; ".join(f"{name}: {p.description}".replace("%", "%%") for name, p in generate.PROFILES.items())
        + " (default %(default)s; --patrons and --titles override its scaling)",
    )
    data.add_argument(
        "--patrons",
        type=patrons,
        default=None,
        help=f"number of patrons, at least {generate.PLANTED_PATRONS} "
        f"(default events/{generate.EVENTS_PER_PATRON} in the default profile, "
        f"at least {generate.MIN_PATRONS})",
    )
    data.add_argument(
        "--titles",
        type=titles,
        default=None,
        help=f"number of titles incl. the built-in catalog, at least {generate.CATALOG_TITLES} "
        f"(default events/{generate.EVENTS_PER_TITLE} in the default profile, at least the catalog)",
    )
    out = parser.add_argument_group("where to write (any combination)")
    out.add_argument("--out-csv", type=Path, help="events as CSV")
    out.add_argument("--hierarchy-dir", type=Path, help="write hierarchy_{title,branch,age_band}.csv here")
    out.add_argument("--duckdb", type=Path, help="DuckDB database file to write --table into")
    out.add_argument("--postgres", action="store_true", help="write --table into Postgres (libpq variables)")
    out.add_argument("--pg-dsn", default=None, help="Postgres connection string (default: libpq variables)")
    out.add_argument("--parquet", type=Path, help="events as Parquet (hierarchies beside it)")
    out.add_argument("--table", default=generate.DEFAULT_TABLE,
                     help="events table, name or schema.name (default %(default)s)")
    out.add_argument(
        "--hierarchy-prefix",
        default=None,
        help="name prefix of hierarchy tables/files (default <table>_hierarchy_; for Parquet <stem>_hierarchy_)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    outputs = generate.Outputs(
        csv=args.out_csv,
        hierarchy_dir=args.hierarchy_dir,
        duckdb=args.duckdb,
        postgres=args.postgres or args.pg_dsn is not None,
        postgres_dsn=args.pg_dsn,
        parquet=args.parquet,
        table=args.table,
        hierarchy_prefix=args.hierarchy_prefix,
    )
    config = generate.GeneratorConfig(args.events, args.seed, args.key, args.year, args.patrons, args.titles,
                                      args.profile)
    return generate.command(config, outputs, quiet=args.quiet)
