{#-
  The command's view of var('kanon_records'): the input table and every hierarchy table as
  relations (engine.py loaded them into schema main), so that kanon's macros take them as they
  would take ref()s. Documented in macros/records_cli.yml.
-#}
{% macro records_cli_relation(name) %}
  {{ return(api.Relation.create(schema='main', identifier=name, type='table')) }}
{% endmacro %}

{% macro records_cli_columns(spec) %}
  {%- set columns = {} -%}
  {%- for name, column in spec.columns.items() -%}
    {%- if column is mapping and column.get('hierarchy') -%}
      {%- do columns.update({name: dict(column, hierarchy=records_cli_relation(column.hierarchy))}) -%}
    {%- else -%}
      {%- do columns.update({name: column}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(columns) }}
{% endmacro %}

{% macro records_cli_inspect() %}
  {%- do kanon.kanon_inspect_records(relation=records_cli_relation(var('kanon_records').relation)) -%}
{% endmacro %}

{% macro records_cli_plan() %}
  {%- set spec = var('kanon_records') -%}
  {%- do kanon.kanon_plan_records(records_cli_relation(spec.relation), records_cli_columns(spec), spec.k, l=spec.l,
      diversity=spec.diversity, privacy_unit=spec.privacy_unit, suppression_unit=spec.suppression_unit,
      max_suppression=spec.max_suppression, missing_value_policy=spec.missing_value_policy) -%}
{% endmacro %}

{#- After a release: the plan's summary (the level-0 risk profile of the input, for the receipt's
    "before") and the release's receipt from the trail, in one dbt start (two KANON_JSON lines). -#}
{% macro records_cli_after_release() %}
  {%- do records_cli_plan() -%}
  {%- do kanon.cli_release_receipt('records_release') -%}
{% endmacro %}
