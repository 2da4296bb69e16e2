{#-
  Recoding a dimension's values along its hierarchy, one definition for every release kind and
  for the audit's replay of past releases (kanon.audit_cell_fates):

    a value's label at level L is level_L of its hierarchy row (level 0: the value itself);
    a value missing from the hierarchy, or NULL, is labelled with the root at every level, at
    the root's level (never with itself: a value the hierarchy does not know has no parent, and
    a NULL must not join a real group); a dimension without a hierarchy has the root '*' at
    level 1, which only its NULLs take.
-#}

{#- `name as (select <leaf>, <label at each level> from <hierarchy>)`: one dimension's lookup,
    the levels given (level 0 needs none: it is the leaf). -#}
{% macro _hierarchy_lookup_cte(d, name, levels) %}
  {%- set q = kanon._quote -%}
  {{ name }} as (
    select
      cast({{ q(d.level_columns[0]) }} as {{ dbt.type_string() }}) as _k_leaf
      {%- for level in levels if level > 0 %},
      cast({{ q(d.level_columns[level]) }} as {{ dbt.type_string() }}) as _k_label{{ level }}
      {%- endfor %}
    from {{ d.hierarchy }}
  )
{%- endmacro %}

{#- A dimension's root label, as a scalar SQL expression. -#}
{% macro _hierarchy_root(d) %}
  {%- if d.hierarchy is none -%}
    {{ return("cast('*' as " ~ dbt.type_string() ~ ")") }}
  {%- endif -%}
  {{ return('(select max(cast(' ~ kanon._quote(d.level_columns[-1]) ~ ' as ' ~ dbt.type_string() ~ ')) from '
      ~ d.hierarchy ~ ')') }}
{% endmacro %}

{#- The level a missing or NULL value is labelled at: its hierarchy's root. -#}
{% macro _hierarchy_root_level(d) %}
  {{ return(d.depth if d.hierarchy is not none else 1) }}
{% endmacro %}

{#- Whether a value is missing from its hierarchy (or NULL): `lookup` is its lookup row joined
    on the leaf (a left join, NULL when missing), `value` the value as text with NULL as
    kanon._null_key(). -#}
{% macro _hierarchy_is_missing(d, value, lookup) %}
  {{ return((lookup ~ '._k_leaf is null') if d.hierarchy is not none else (value ~ ' = ' ~ kanon._null_key())) }}
{% endmacro %}

{#- {'label': SQL, 'level': SQL}: the value's label and level at hierarchy level L, from its
    lookup row (see _hierarchy_is_missing) and the root's label. At the root's own level every
    value has the root, so no test is written. -#}
{% macro _hierarchy_recode(d, level, value, lookup, root) %}
  {%- set root_level = kanon._hierarchy_root_level(d) -%}
  {%- if d.hierarchy is not none and level == d.depth -%}
    {{ return({'label': root, 'level': level | string}) }}
  {%- endif -%}
  {%- set missing = kanon._hierarchy_is_missing(d, value, lookup) -%}
  {%- set label = value if level == 0 else lookup ~ '._k_label' ~ level -%}
  {{ return({
      'label': 'case when ' ~ missing ~ ' then ' ~ root ~ ' else ' ~ label ~ ' end',
      'level': 'case when ' ~ missing ~ ' then ' ~ root_level ~ ' else ' ~ level ~ ' end',
  }) }}
{% endmacro %}
