{#-
  A quasi-identifier's label at each level, as SQL, one definition for the search's class table,
  the published rows and kanon_plan_records. Level 0 is the value as text, the top level a single
  root; a NULL (and, for a hierarchy, a value it does not list) has the root at every level,
  never a placeholder of its own (missing_value_policy='suppress' removes such records instead).

    hierarchy    level L is level_L of the value's hierarchy row (kanon._hierarchy_recode)
    bins         edges e0 < ... < en: '<e0', 'e_i-(e_(i+1) - 1)' for e_i <= v < e_(i+1) when
                 every edge is a whole number (else '[e_i, e_(i+1))'), 'en+'
    date         day 'YYYY-MM-DD', month 'YYYY-MM', quarter 'YYYY-Qn', year 'YYYY'
    suppression  the value, then the root
-#}

{#- The FROM clause of the relation with every hierarchy's lookup (CTEs _k_lookup<i>, see
    _records_lookup_ctes) joined on the value's text. -#}
{% macro _records_from(plan, alias='_k_src') %}
  {%- set q = kanon._quote -%}
  {{ plan.relation }} as {{ alias }}
  {%- for qi in plan.qis if qi.hierarchy is not none %}
  left join _k_lookup{{ qi.index }}
  {{- ' ' }}on _k_lookup{{ qi.index }}._k_leaf = cast({{ alias }}.{{ q(qi.name) }} as {{ dbt.type_string() }})
  {%- endfor %}
{%- endmacro %}

{#- `_k_lookup<i> as (...)` for every quasi-identifier with a hierarchy, each followed by a comma. -#}
{% macro _records_lookup_ctes(plan) %}
  {%- for qi in plan.qis if qi.hierarchy is not none %}
  {{ kanon._hierarchy_lookup_cte(qi, '_k_lookup' ~ qi.index, range(qi.depth + 1)) }},
  {%- endfor %}
{%- endmacro %}

{#- The root label of a quasi-identifier, as SQL. -#}
{% macro _records_root(qi) %}
  {{ return(kanon._hierarchy_root(qi) if qi.hierarchy is not none else "cast('*' as " ~ dbt.type_string() ~ ")") }}
{% endmacro %}

{#- Whether a record's value of the quasi-identifier is missing: NULL. (A value its hierarchy does
    not list is not missing: it has the hierarchy's root at every level, like a NULL under 'star'.) -#}
{% macro _records_is_missing(qi, alias='_k_src') %}
  {{ return(alias ~ '.' ~ kanon._quote(qi.name) ~ ' is null') }}
{% endmacro %}

{#- The label of the quasi-identifier at `level`, as SQL over _records_from. -#}
{% macro _records_label(qi, level, alias='_k_src') %}
  {%- set string = dbt.type_string() -%}
  {%- set value = alias ~ '.' ~ kanon._quote(qi.name) -%}
  {%- set root = kanon._records_root(qi) -%}
  {%- if level == qi.depth -%}
    {{ return(root) }}
  {%- endif -%}
  {%- if qi.generalizer == 'hierarchy' -%}
    {{ return(kanon._hierarchy_recode(qi, level, 'cast(' ~ value ~ ' as ' ~ string ~ ')', '_k_lookup' ~ qi.index,
                                      root).label) }}
  {%- endif -%}
  {%- if level == 0 -%}
    {%- set label = 'cast(' ~ value ~ ' as ' ~ string ~ ')' -%}
  {%- elif qi.generalizer == 'bins' -%}
    {%- set label = kanon._records_bin_label(value, qi.bins[level - 1]) -%}
  {%- elif qi.generalizer == 'date' -%}
    {%- set label = kanon._records_date_label(value, qi.units[level - 1]) -%}
  {%- endif -%}
  {{ return('case when ' ~ value ~ ' is null then ' ~ root ~ ' else ' ~ label ~ ' end') }}
{% endmacro %}

{% macro _records_bin_label(value, edges) %}
  {%- set whole = (edges | reject('integer') | list) | length == 0 -%}
  {%- set parts = ["case when " ~ value ~ " < " ~ edges[0] ~ " then '<" ~ edges[0] ~ "'"] -%}
  {%- for edge in edges[1:] -%}
    {%- set low = edges[loop.index0] -%}
    {%- do parts.append("when " ~ value ~ " < " ~ edge ~ " then '"
        ~ ((low ~ '-' ~ (edge - 1)) if whole else ('[' ~ low ~ ', ' ~ edge ~ ')')) ~ "'") -%}
  {%- endfor -%}
  {%- do parts.append("else '" ~ edges[-1] ~ "+' end") -%}
  {{ return('cast(' ~ (parts | join(' ')) ~ ' as ' ~ dbt.type_string() ~ ')') }}
{% endmacro %}

{#- Portable date labels: extract and lpad mean the same on every warehouse, to_char/strftime do not. -#}
{% macro _records_date_label(value, unit) %}
  {%- set string = dbt.type_string() -%}
  {%- set part = kanon._records_date_part -%}
  {%- set year = part(value, 'year', 4) -%}
  {%- if unit == 'year' -%}
    {{ return(year) }}
  {%- elif unit == 'quarter' -%}
    {{ return(year ~ " || '-Q' || " ~ part(value, 'quarter', 1)) }}
  {%- elif unit == 'month' -%}
    {{ return(year ~ " || '-' || " ~ part(value, 'month', 2)) }}
  {%- endif -%}
  {{ return(year ~ " || '-' || " ~ part(value, 'month', 2) ~ " || '-' || " ~ part(value, 'day', 2)) }}
{% endmacro %}

{% macro _records_date_part(value, part, width) %}
  {{ return('lpad(cast(cast(extract(' ~ part ~ ' from ' ~ value ~ ') as ' ~ dbt.type_int() ~ ') as ' ~ dbt.type_string()
      ~ '), ' ~ width ~ ", '0')") }}
{% endmacro %}
