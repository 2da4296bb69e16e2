{#- md5 of a hierarchy's rows (its level columns) in a fixed order, computed by the warehouse:
    the hierarchy's identity in a release's policy fingerprint and in the audit trail's
    snapshots (kanon_audit_hierarchies). -#}
{% macro _hierarchy_content_hash(relation, level_columns) %}
  {%- set row_text -%}
    {%- for col in level_columns -%}
      coalesce(cast({{ kanon._quote(col) }} as {{ dbt.type_string() }}), '')
      {%- if not loop.last %} || chr(31) || {% endif -%}
    {%- endfor -%}
  {%- endset -%}
  {%- set hash_sql -%}
    select {{ kanon._hierarchy_rows_hash('row_text') }}
    from (select {{ row_text }} as row_text from {{ relation }}) as rows_as_text
  {%- endset -%}
  {{ return(run_query(hash_sql).rows[0][0]) }}
{% endmacro %}

{#- The aggregate: md5 of the rows' texts sorted and joined by chr(30) ('' when there are none). -#}
{% macro _hierarchy_rows_hash(row_text) %}
  {{ return(adapter.dispatch('_hierarchy_rows_hash', 'kanon')(row_text)) }}
{% endmacro %}

{% macro default___hierarchy_rows_hash(row_text) %}
  {{ return("md5(coalesce(string_agg(" ~ row_text ~ ", chr(30) order by " ~ row_text ~ "), ''))") }}
{% endmacro %}

{#- Spark has no ordered string_agg: the texts are collected, sorted (by their bytes, as DuckDB
    orders text) and joined. -#}
{% macro spark___hierarchy_rows_hash(row_text) %}
  {{ return("md5(array_join(array_sort(collect_list(" ~ row_text ~ ")), chr(30)))") }}
{% endmacro %}
