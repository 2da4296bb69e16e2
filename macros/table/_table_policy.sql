{#-
  A table release's policy and its plan, as recorded with the release:
    fingerprint  md5 of everything that changes what is published: k, the relation, the privacy
                 unit (or counting rows), the two dimensions, the count column, hide_zeros, the
                 total label and null_unit;
    plan         the JSON kept in kanon_audit_releases.release_plan: the policy, the published
                 columns (which the gate reads back), and what the search did: cells, primary,
                 secondary and published cells, totals that are not the sum of their cells, the
                 rounds and seconds of the search, the refusal. Counts of cells only, never a
                 cell's count.
-#}
{% macro _table_policy(plan, search) %}
  {%- set policy = {
      'kind': 'table', 'k': plan.k, 'relation': plan.relation | string, 'privacy_unit': plan.privacy_unit,
      'count_rows': plan.count_rows, 'row': plan.row.column, 'column': plan.column.column,
      'count_column': plan.count_column, 'hide_zeros': plan.hide_zeros, 'total_label': plan.total_label,
      'null_unit': plan.null_unit} -%}
  {%- set recorded = dict(policy) -%}
  {#- the materialization snapshots the hierarchies of a plan's dimensions: a table has none -#}
  {%- do recorded.update({
      'dimensions': [{'name': plan.row.column, 'hierarchy': none}, {'name': plan.column.column, 'hierarchy': none}],
      'cells': search.cells, 'primary': search.primary, 'secondary': search.secondary, 'published': search.published,
      'non_additive_totals': search.non_additive, 'rounds': search.rounds, 'search_seconds': search.seconds,
      'refused': search.refused}) -%}
  {{ return({'fingerprint': local_md5(tojson(policy, sort_keys=true)), 'plan': tojson(recorded, sort_keys=true)}) }}
{% endmacro %}
