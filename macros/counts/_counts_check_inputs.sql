{#-
  Execute-time checks of a release's inputs: every hierarchy is validated
  (macros/hierarchy/_hierarchy_validate.sql). Values missing from a hierarchy only warn, because
  the engine already sends them to the root; outside k_anonymous (whose release counts them itself) that takes one scan
  of the events here, and so does the count of events with a NULL privacy unit (scan_null_unit).
-#}
{% macro _counts_check_inputs(plan, warn_missing, scan_null_unit) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set hierarchical = plan.dims | selectattr('hierarchy') | list -%}
  {%- for d in hierarchical -%}
    {%- do kanon._hierarchy_validate(d, plan.who) -%}
  {%- endfor -%}

  {#- Events of nobody: left out of the release (null_unit='ignore', with a warning) or refusing it. -#}
  {%- if scan_null_unit and not plan.count_rows -%}
    {%- set nulls_sql = 'select count(*) from ' ~ plan.relation ~ ' as _k_source where _k_source.'
        ~ q(plan.privacy_unit) ~ ' is null and ' ~ kanon._counts_delay_condition(plan, '_k_source') -%}
    {%- set nulls = run_query(nulls_sql).rows[0][0] | int -%}
    {%- if nulls > 0 -%}
      {%- do kanon._null_unit_found(plan.who, plan.null_unit, nulls, plan.privacy_unit) -%}
    {%- endif -%}
  {%- endif -%}

  {%- if warn_missing and hierarchical | length > 0 -%}
    {%- set missing_sql -%}
      select
        {%- for d in hierarchical %}
        {% if not loop.first %}, {% endif -%}
        count(distinct case when _k_h{{ loop.index0 }}._k_leaf is null then _k_src._k_v{{ loop.index0 }} end)
        {%- endfor %}
      from (
        select
          {%- for d in hierarchical %}
          {% if not loop.first %}, {% endif %}cast({{ q(d.column) }} as {{ string }}) as _k_v{{ loop.index0 }}
          {%- endfor %}
        from {{ plan.relation }}
      ) as _k_src
      {%- for d in hierarchical %}
      {%- set i, leaf = loop.index0, q(d.level_columns[0]) %}
      left join (select distinct cast({{ leaf }} as {{ string }}) as _k_leaf from {{ d.hierarchy }}) as _k_h{{ i }}
        on _k_h{{ i }}._k_leaf = _k_src._k_v{{ i }}
      {%- endfor %}
    {%- endset -%}
    {%- set row = run_query(missing_sql).rows[0] -%}
    {%- for d in hierarchical -%}
      {%- if row[loop.index0] > 0 -%}
        {%- do exceptions.warn(
            plan.who ~ ": " ~ row[loop.index0] ~ " distinct value(s) of '" ~ d.name ~ "' in " ~ plan.relation
            ~ " are missing from hierarchy " ~ d.hierarchy ~ "; they are released only at its root. "
            ~ "Add them to the hierarchy seed (the kanon.hierarchy_covers test lists them).") -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
{% endmacro %}

