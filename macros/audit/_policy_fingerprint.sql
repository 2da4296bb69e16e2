{#-
  A fingerprint of a release policy: everything that changes what is released. k, the events
  relation, the privacy unit and how people are counted, the dimensions (as given and as
  resolved), the ladder, the NULL policies, the count column, the measures (names and SQL, in
  order), the remainder row, the dominance rule, max_suppression, and the content of every
  hierarchy. Two releases with the same fingerprint made the same decisions for the same events;
  a changed fingerprint explains a changed suppression rate. Runs one small query per hierarchy.
-#}
{% macro _policy_fingerprint(plan, max_suppression=none) %}
  {%- set measures = [] -%}
  {%- for name, expression in plan.measures.items() -%}{%- do measures.append([name, expression]) -%}{%- endfor -%}
  {%- set parts = [
      'k=' ~ plan.k,
      'relation=' ~ plan.relation,
      'privacy_unit=' ~ plan.privacy_unit,
      'count_rows=' ~ plan.count_rows,
      'dimensions=' ~ tojson(plan.dims | map(attribute='name') | list),
      'columns=' ~ tojson(plan.dims | map(attribute='column') | list),
      'ladder=' ~ tojson(plan.steps),
      'null_policy=' ~ plan.null_policy,
      'null_unit=' ~ plan.null_unit,
      'count_column=' ~ plan.count_column,
      'measures=' ~ tojson(measures),
      'remainder=' ~ plan.remainder,
      'dominance=' ~ tojson(plan.dominance, sort_keys=true),
      'max_suppression=' ~ max_suppression,
  ] -%}
  {%- for d in plan.dims if d.hierarchy is not none -%}
    {%- do parts.append('hierarchy ' ~ d.name ~ '=' ~ kanon._hierarchy_content_hash(d.hierarchy, d.level_columns)) -%}
  {%- endfor -%}
  {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}

{#- md5 of a hierarchy's rows in a fixed order, computed by the warehouse. -#}
{% macro _hierarchy_content_hash(relation, level_columns) %}
  {{ return(adapter.dispatch('_hierarchy_content_hash', 'kanon')(relation, level_columns)) }}
{% endmacro %}

{% macro default___hierarchy_content_hash(relation, level_columns) %}
  {%- set row_text -%}
    {%- for col in level_columns -%}
      coalesce(cast({{ kanon._quote(col) }} as {{ dbt.type_string() }}), '') {%- if not loop.last %} || chr(31) || {% endif -%}
    {%- endfor -%}
  {%- endset -%}
  {%- set hash_sql -%}
    select md5(coalesce(string_agg(row_text, chr(30) order by row_text), ''))
    from (select {{ row_text }} as row_text from {{ relation }}) as rows_as_text
  {%- endset -%}
  {{ return(run_query(hash_sql).rows[0][0]) }}
{% endmacro %}
