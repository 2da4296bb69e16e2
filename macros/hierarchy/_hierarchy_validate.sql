{#-
  Validates a release's hierarchy at execute time, in one query: the same invariants as the
  hierarchy tests (leaves listed once, one parent per label, a single root, no NULL or blank
  label, no label standing for different leaves at two levels: the last with the test's own SQL,
  kanon._hierarchy_ambiguous_labels). A hierarchy breaking one would silently duplicate,
  mislabel or merge events, or publish a label that could mean two groups, so it stops the
  release. Every release kind calls it on each hierarchy it is given (counts in
  _counts_check_inputs, records in _records_generalizer, tables with totals in _table_plan).
  `d` is a dimension of a release plan (name, hierarchy, level_columns); `who` names the macro
  called.
-#}
{% macro _hierarchy_validate(d, who) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set levels = d.level_columns -%}
  {%- set check_sql -%}
    select
      (select count(*) from (
          select {{ q(levels[0]) }} from {{ d.hierarchy }}
          group by {{ q(levels[0]) }} having count(*) > 1) as _k_dup) as duplicate_leaves,
      (select count(distinct {{ q(levels[-1]) }}) from {{ d.hierarchy }}) as roots,
      (select count(*) from {{ d.hierarchy }} where
        {%- for col in levels %}
        {% if not loop.first %}or {% endif -%}
        {{ kanon.hierarchy_label_is_blank('cast(' ~ q(col) ~ ' as ' ~ string ~ ')') }}
        {%- endfor %}) as blank_labels,
      (select count(*) from (
        {%- for col in levels[:-1] %}
        {% if not loop.first %}union all {% endif -%}
        select cast({{ q(col) }} as {{ string }}) as _k_child from {{ d.hierarchy }}
        group by {{ q(col) }} having count(distinct {{ q(levels[loop.index]) }}) > 1
        {%- endfor %}
      ) as _k_two_parents) as two_parents,
      (select count(*) from (
        {{ kanon._hierarchy_ambiguous_labels(d.hierarchy, levels) }}
      ) as _k_ambiguous) as ambiguous_labels
  {%- endset -%}
  {%- set row = run_query(check_sql).rows[0] -%}
  {%- if row[0] > 0 or row[1] != 1 or row[2] > 0 or row[3] > 0 or row[4] > 0 -%}
    {{ exceptions.raise_compiler_error(
        who ~ ": hierarchy " ~ d.hierarchy ~ " for dimension '" ~ d.name ~ "' is not a valid hierarchy ("
        ~ row[0] ~ " leaf value(s) listed more than once, " ~ row[1] ~ " distinct root(s) where exactly 1 is required, "
        ~ row[2] ~ " row(s) with a NULL or blank label, " ~ row[3] ~ " label(s) with more than one parent, "
        ~ row[4] ~ " label(s) standing for different leaves at two levels). "
        ~ "Run its kanon hierarchy tests (dbt test -s " ~ d.hierarchy.identifier ~ ").") }}
  {%- endif -%}
{% endmacro %}
