{#-
  Validates a release's hierarchy at execute time, in one query: the same invariants as the
  hierarchy tests (leaves listed once, one parent per label, a single root, no NULL or blank
  label). A hierarchy breaking one would silently duplicate, mislabel or merge events, so it
  stops the release. `d` is a dimension of a release plan; `who` names the macro called.
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
        {% if not loop.first %}or {% endif %}{{ kanon.hierarchy_label_is_blank('cast(' ~ q(col) ~ ' as ' ~ string ~ ')') }}
        {%- endfor %}) as blank_labels,
      (select count(*) from (
        {%- for col in levels[:-1] %}
        {% if not loop.first %}union all {% endif %}select cast({{ q(col) }} as {{ string }}) as _k_child from {{ d.hierarchy }}
        group by {{ q(col) }} having count(distinct {{ q(levels[loop.index]) }}) > 1
        {%- endfor %}
      ) as _k_two_parents) as two_parents
  {%- endset -%}
  {%- set row = run_query(check_sql).rows[0] -%}
  {%- if row[0] > 0 or row[1] != 1 or row[2] > 0 or row[3] > 0 -%}
    {{ exceptions.raise_compiler_error(
        who ~ ": hierarchy " ~ d.hierarchy ~ " for dimension '" ~ d.name ~ "' is not a valid hierarchy ("
        ~ row[0] ~ " leaf value(s) listed more than once, " ~ row[1] ~ " distinct root(s) where exactly 1 is required, "
        ~ row[2] ~ " row(s) with a NULL or blank label, " ~ row[3] ~ " label(s) with more than one parent). "
        ~ "Run its kanon hierarchy tests (dbt test -s " ~ d.hierarchy.identifier ~ ").") }}
  {%- endif -%}
{% endmacro %}
