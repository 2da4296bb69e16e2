"""The file-in, file-out record release (issue 14; docs/decisions/0011-records-from-a-file.md):
its building blocks so far.

files: CSV, JSON and XML tables in and out, rows in a deterministic shuffled order, written
atomically; loading: such a table into DuckDB, typed as the configuration says; shapes: the
value-shape language of hint packs, matched in linear time; identifiers: identifier-shaped
values (phone, My Number, e-mail, card) found in text, counted; hints: hint packs (the built-in
Japanese one in builtin_hints/), suggesting roles and generalizers, turning on leak checks and
observations; proxies: a kept column that nearly determines a quasi-identifier, or the reverse,
counted in DuckDB; commands: the verbs of `kanon-records` (kanon_tools.cli.records parses
them).
"""
