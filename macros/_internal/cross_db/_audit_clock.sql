{#- The warehouse's clock, in UTC, as the audit's timestamp type. -#}
{% macro _audit_clock() %}
  {{- return(adapter.dispatch('_audit_clock', 'kanon')()) -}}
{% endmacro %}

{% macro default___audit_clock() -%}
  cast({{ dbt.current_timestamp() }} as {{ dbt.type_timestamp() }})
{%- endmacro %}

{#- clock_timestamp(), not now(): now() is the transaction's start, the same for releases that
    began together; the summary row is written after the swap, which waits for the other. -#}
{% macro postgres___audit_clock() -%}
  cast(clock_timestamp() at time zone 'UTC' as {{ dbt.type_timestamp() }})
{%- endmacro %}

{#- One writer per database file, so a transaction's start already orders its releases. -#}
{% macro duckdb___audit_clock() -%}
  cast(timezone('UTC', get_current_timestamp()) as {{ dbt.type_timestamp() }})
{%- endmacro %}
