{#- md5 of a hierarchy's rows (its level columns) in a fixed order, computed by the warehouse:
    the hierarchy's identity in a release's policy fingerprint and in the audit trail's
    snapshots (kanon_audit_hierarchies). -#}
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
