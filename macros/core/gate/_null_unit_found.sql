{#- What a release does about events whose privacy unit is NULL: warns that they were left out
    (null_unit='ignore') or refuses (null_unit='error'). Shared by the compile-time scan and the
    k_anonymous materialization, which reads the count from the release's own statement. -#}
{% macro _null_unit_found(who, null_unit, events, privacy_unit) %}
  {%- set message = who ~ ": " ~ events ~ " event(s) have a NULL privacy unit ('" ~ privacy_unit ~ "')" -%}
  {%- if null_unit == 'error' -%}
    {{ exceptions.raise_compiler_error(message ~ "; null_unit='error' refuses the release. Give every event its person,"
        ~ " or set null_unit='ignore' to leave them out.") }}
  {%- endif -%}
  {%- do exceptions.warn(message ~ ": they belong to nobody that can be counted and were left out of the release,"
      ~ " measures included (null_unit='ignore'; 'error' refuses instead).") -%}
{% endmacro %}
