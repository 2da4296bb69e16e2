{#- The SQL condition that a count of people may not be published at k: NULL, or not a finite
    number of at least k. NaN compares above every number on DuckDB, Postgres and Spark (so
    `NaN < k` is false, hence no `count < k` here), and an infinite count is outside any whole
    number: the upper bound (the largest bigint) refuses both, as a count of people is a bigint.
    One condition for the gate (_release_facts, check min_count), the generic test
    kanon.k_anonymous and the audit command's scan (cli_scan_release), so that none of them lets
    through what another refuses. -#}
{% macro _count_below_k(count, k) -%}
  ({{ count }} is null or not ({{ count }} >= {{ k }} and {{ count }} <= 9223372036854775807))
{%- endmacro %}
