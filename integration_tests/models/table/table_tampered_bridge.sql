{# Not kanon's search: a pattern that keeps the line rule (every line with a hidden cell has two
   or more) but links two rectangles, Tue/Thu x Saves/Follows and Mon/Wed x Views/Total, by one
   hidden cell, Mon Follows, which the totals then give away. Refused: no_exact_disclosure. #}
{{ config(materialized='k_anonymous', k=5, kanon_release_kind='table', enabled=var('table_refusals', false)) }}
{{ tampered_table_release(ref('table_activity'), 5, [
    "(0, 'Tue', 0, 'Follows')", "(0, 'Mon', 0, 'Views')", "(0, 'Mon', 1, '')", "(0, 'Wed', 0, 'Views')", "(0, 'Wed', 1, '')"]) }}
