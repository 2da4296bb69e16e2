{#-
  A fingerprint of a release policy: k, the dimensions, the ladder, the NULL policy, how people
  are counted, and the content of every hierarchy. Two releases with the same fingerprint made
  the same decisions for the same events; a changed fingerprint explains a changed suppression
  rate. Runs one small query per hierarchy.
-#}
{% macro _policy_fingerprint(plan) %}
  {%- set parts = [
      'k=' ~ plan.k,
      'dimensions=' ~ (plan.dims | map(attribute='name') | join('|')),
      'ladder=' ~ tojson(plan.steps),
      'null_policy=' ~ plan.null_policy,
      'count_rows=' ~ plan.count_rows,
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
      coalesce(cast({{ adapter.quote(col) }} as {{ dbt.type_string() }}), '') {%- if not loop.last %} || chr(31) || {% endif -%}
    {%- endfor -%}
  {%- endset -%}
  {%- set hash_sql -%}
    select md5(coalesce(string_agg(row_text, chr(30) order by row_text), ''))
    from (select {{ row_text }} as row_text from {{ relation }}) as rows_as_text
  {%- endset -%}
  {{ return(run_query(hash_sql).rows[0][0]) }}
{% endmacro %}
