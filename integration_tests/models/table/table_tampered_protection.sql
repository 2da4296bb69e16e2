{# Not kanon's search: the worked example's pattern (no exact disclosure, but Tue's cells pinned
   to 2-wide intervals) under a model whose config promises a protection width of 3, while its
   long form claims none. The gate holds it to the config: no_exact_disclosure refuses. #}
{{ config(materialized='k_anonymous', k=5, kanon_release_kind='table', kanon_table={'hide_zeros': false, 'protection': 3},
    enabled=var('table_refusals', false)) }}
{{ tampered_table_release(ref('table_activity'), 5, ["(0, 'Mon', 0, 'Saves')", "(0, 'Tue', 0, 'Follows')"]) }}
