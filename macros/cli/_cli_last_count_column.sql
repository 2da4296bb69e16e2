{#- The count column the last RELEASED release of a model (by unique id) was checked on, from the
    audit trail; none when the project has no audit model, the trail is not in the warehouse yet,
    or the model was never released. -#}
{% macro _cli_last_count_column(unique_id) %}
  {%- if graph.nodes.get('model.kanon.kanon_audit_releases') is none -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set audit = kanon._audit_relation('kanon_audit_releases') -%}
  {%- set releases = adapter.get_relation(database=audit.database, schema=audit.schema, identifier=audit.identifier) -%}
  {%- if releases is none -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set sql -%}
    select count_column
    from {{ releases }}
    where report_unique_id = '{{ unique_id | replace("'", "''") }}' and status = 'RELEASED' and count_column is not null
    order by released_at desc
    limit 1
  {%- endset -%}
  {%- set rows = run_query(sql).rows -%}
  {{ return(rows[0][0] if rows | length > 0 else none) }}
{% endmacro %}
