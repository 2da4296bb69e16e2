{#-
  Execute-time checks of a release's inputs, in one query per hierarchy: a hierarchy whose
  leaves repeat or that has no single root would silently duplicate or mislabel events, so it
  stops the release. Values missing from a hierarchy only warn, because the engine already sends
  them to the root; outside k_anonymous (whose release counts them itself) that takes one scan
  of the events here.
-#}
{% macro _release_check_inputs(plan, warn_missing) %}
  {%- set q = adapter.quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set hierarchical = plan.dims | selectattr('hierarchy') | list -%}
  {%- for d in hierarchical -%}
    {%- set check_sql -%}
      select
        (select count(*) from (
            select {{ q(d.level_columns[0]) }} from {{ d.hierarchy }}
            group by {{ q(d.level_columns[0]) }} having count(*) > 1) as _k_dup) as duplicate_leaves,
        (select count(distinct {{ q(d.level_columns[-1]) }}) from {{ d.hierarchy }}) as roots,
        (select count(*) from {{ d.hierarchy }} where
          {%- for col in d.level_columns %}
          {% if not loop.first %}or {% endif %}{{ q(col) }} is null
          {%- endfor %}) as null_labels
    {%- endset -%}
    {%- set row = run_query(check_sql).rows[0] -%}
    {%- if row[0] > 0 or row[1] != 1 or row[2] > 0 -%}
      {{ exceptions.raise_compiler_error(
          "kanon.release_counts: hierarchy " ~ d.hierarchy ~ " for dimension '" ~ d.name ~ "' is not a valid hierarchy ("
          ~ row[0] ~ " leaf value(s) listed more than once, " ~ row[1] ~ " distinct root(s) where exactly 1 is required, "
          ~ row[2] ~ " row(s) with NULL labels). Run its kanon hierarchy tests (dbt test -s " ~ d.hierarchy.identifier ~ ").") }}
    {%- endif -%}
  {%- endfor -%}

  {%- if warn_missing and hierarchical | length > 0 -%}
    {%- set missing_sql -%}
      select
        {%- for d in hierarchical %}
        {% if not loop.first %}, {% endif %}count(distinct case when _k_h{{ loop.index0 }}._k_leaf is null then _k_src._k_v{{ loop.index0 }} end)
        {%- endfor %}
      from (
        select
          {%- for d in hierarchical %}
          {% if not loop.first %}, {% endif %}cast({{ q(d.column) }} as {{ string }}) as _k_v{{ loop.index0 }}
          {%- endfor %}
        from {{ plan.relation }}
      ) as _k_src
      {%- for d in hierarchical %}
      left join (select distinct cast({{ q(d.level_columns[0]) }} as {{ string }}) as _k_leaf from {{ d.hierarchy }}) as _k_h{{ loop.index0 }}
        on _k_h{{ loop.index0 }}._k_leaf = _k_src._k_v{{ loop.index0 }}
      {%- endfor %}
    {%- endset -%}
    {%- set row = run_query(missing_sql).rows[0] -%}
    {%- for d in hierarchical -%}
      {%- if row[loop.index0] > 0 -%}
        {%- do exceptions.warn(
            "kanon.release_counts: " ~ row[loop.index0] ~ " distinct value(s) of '" ~ d.name ~ "' in " ~ plan.relation
            ~ " are missing from hierarchy " ~ d.hierarchy ~ "; they are released only at its root. "
            ~ "Add them to the hierarchy seed (the kanon.hierarchy_covers test lists them).") -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
{% endmacro %}
