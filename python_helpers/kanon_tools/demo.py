"""`python -m kanon_tools demo`: show what the example release published, after `dbt build`.

It only reads: the warehouse is opened read-only (a DuckDB file that is not there is refused,
never created). A bad --rows exits 2 (argparse); a missing database or example release exits 1
with one line, `kanon demo: ...`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from kanon_tools.audit import cli_runner, read_only_connection
from kanon_tools.warehouse import fetch

MART = "circulation_by_branch_age_title"
NOISY = "circulation_by_branch_age_title_noisy"  # its noisy twin (docs/reference/noise.md)
LEVELS = ("branch", "branch_level", "age_band", "age_band_level", "title", "title_level")
# a few of the largest rows at each combination of levels, coarsest last
SHOWN = (
    "select m.*, row_number() over (partition by branch_level, age_band_level, title_level"
    "   order by patrons desc, branch, age_band, title) as rank_in_level"
    f" from {{{{ ref('{MART}') }}}} as m"
)
def shown_order(at: str = "") -> str:
    """The order the rows are shown in, coarsest last (`at` qualifies the columns)."""
    return (f"{at}branch_level + {at}age_band_level + {at}title_level, {at}branch_level, {at}age_band_level, "
            f"{at}title_level, {at}rank_in_level")


def format_table(columns: list[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(c) for c in columns]] + [["" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    # no trailing blanks: the README shows this output verbatim (tests/core/test_example.py compares)
    lines = [" | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


# Split mark between the queries compiled together (one dbt invocation for all of them).
_SPLIT = "-- kanon demo: next query"


def _compile(args: argparse.Namespace, queries: list[str]) -> list[str]:
    """The queries as dbt compiles them in this project (`dbt compile --inline`): relations are
    dbt's to resolve (refs to the mart and to kanon's audit models), never re-derived here.
    Compiled before the demo opens its own read-only connection: DuckDB lets one process write."""
    with cli_runner(args, "demo") as runner:  # refuses a missing DuckDB file before dbt could create it
        # the noisy twin is a node only under the var it was built with
        twin = ["--vars", "{kanon_example_noise: true}"] if args.noisy_twin else []
        result = runner.run("compile", "--quiet", "--inline", f"\n{_SPLIT}\n".join(queries), *twin)
    if not result.ok:
        raise SystemExit(f"kanon demo: cannot read the example release {MART} (build it first: make demo, "
                         f"or dbt build with this KANON_SCHEMA): {result.error()}")
    return result.output.split(_SPLIT)


def run(args: argparse.Namespace) -> int:
    queries = [
        f"select {', '.join(LEVELS)}, patrons, loans from ({SHOWN}) as ranked where rank_in_level <= 2"
        f" order by {shown_order()} limit {args.rows}",
        f"select count(*), min(patrons) from {{{{ ref('{MART}') }}}}",
        # the private audit trail explains the release: its groups, and one planted cell's fate
        "select g.decision, count(*), sum(g.people) from {{ ref('kanon', 'kanon_audit_groups') }} as g"
        " inner join (select invocation_id, report_unique_id from {{ ref('kanon', 'kanon_audit_releases') }}"
        f" where report = '{MART}' and status = 'RELEASED' order by released_at desc limit 1) as latest"
        " on g.invocation_id = latest.invocation_id and g.report_unique_id = latest.report_unique_id"
        " group by g.decision order by g.decision",
        "{{ kanon.audit_cell_fates('" + MART + "', \"select 'RIVERSIDE' as branch, '13-17' as age_band,"
        " 'Coping With a Parent''s Incarceration' as title\") }}",
    ]
    if args.noisy_twin:
        # the first rows shown, next to the noisy twin's (none: perturbed to 0, left out)
        queries.append(
            "select ranked.branch, ranked.age_band, ranked.title, ranked.patrons, noisy.patrons from"
            f" ({SHOWN}) as ranked left join {{{{ ref('{NOISY}') }}}} as noisy on "
            + " and ".join(f"ranked.{c} = noisy.{c}" for c in LEVELS)
            + f" where ranked.rank_in_level <= 2 order by {shown_order('ranked.')} limit {min(args.rows, 6)}")
    mart_rows, mart_size, groups, planted, *twins = _compile(args, queries)
    with read_only_connection(args.target, "demo") as conn:
        columns, rows = fetch(conn, mart_rows)
        (size, smallest), = fetch(conn, mart_size)[1]
        # the model's name, not its relation: the output is the same wherever the demo was built
        print(f"\nReleased: {MART} (every row describes at least k=5 distinct patrons)\n")
        print(format_table(columns, rows))
        print(f"\n{size} rows released, smallest cell {smallest} patrons.")
        print("Groups of the latest release by decision, from the audit trail "
              "(a patron in several groups counts in each):")
        for decision, n_groups, patrons in fetch(conn, groups)[1]:
            print(f"  {decision:<10} {n_groups:>6} groups  ({patrons} patrons)")
        for _branch, _age, _title, _labels, decision, _step, labels, _levels, patrons in fetch(conn, planted)[1]:
            where = (
                f"released as {' | '.join(json.loads(labels).values())} ({patrons} patrons)" if labels else "suppressed"
            )
            print(f"\nThe 1-patron cell RIVERSIDE | 13-17 | Coping With a Parent's Incarceration: {decision},\n"
                  f"{where}.")
        if not twins:
            return 0
        print(f"\nIts noisy twin, {NOISY}: the same rows, each count perturbed after the k rule\n"
              "(the Cell Key Method: the same patrons, the same perturbation; never 1..4):\n")
        shown = [(*row[:3], row[3], "left out (0)" if row[4] is None else row[4]) for row in fetch(conn, twins[0])[1]]
        print(format_table(["branch", "age_band", "title", "patrons", "noisy patrons"], shown))
    return 0
