{#-
  The record release's classes, defined once for the search and for the published rows:

    class table  one scan of the relation into its level-0 classes: every quasi-identifier's
                 label at every level, the person (with a privacy unit), the sensitive values,
                 whether the record is missing (suppressed up front), its count _k_n, and each
                 label's non-uniform-entropy loss. The search evaluates lattice nodes on it.
    judging      a class (records with the same labels at a node) is kept when it describes at
                 least k people and every sensitive column is l-diverse; otherwise its records are
                 suppressed as too_small, not_diverse, or missing (a NULL quasi-identifier under
                 missing_value_policy='suppress', or a NULL privacy unit).
-#}

{#- The level-0 class table, as a select (the caller creates the temporary table). -#}
{% macro _records_class_table_sql(plan) %}
  {%- set string = dbt.type_string() -%}
  {%- set double = kanon._records_double() -%}
  {%- set keys = kanon._records_class_table_keys(plan) -%}
with
{{ kanon._records_lookup_ctes(plan) }}
_k_rows as (
  select
    {%- for qi in plan.qis %}
    {%- for level in range(qi.depth + 1) %}
    {{ kanon._records_label(qi, level) }} as _k_q{{ qi.index }}_l{{ level }},
    {%- endfor %}
    {%- endfor %}
    {%- if plan.privacy_unit is not none %}
    cast(_k_src.{{ kanon._quote(plan.privacy_unit) }} as {{ string }}) as _k_person_text,
    {%- endif %}
    {%- for name in plan.sensitive %}
    cast(_k_src.{{ kanon._quote(name) }} as {{ string }}) as _k_s{{ loop.index0 }}_text,
    {%- endfor %}
    {{ kanon._records_missing_flag(plan) }} as _k_missing
  from {{ kanon._records_from(plan) }}
),
_k_grouped as (
  select {{ keys | join(', ') }}, count(*) as _k_n
  from _k_rows
  group by {{ keys | join(', ') }}
)
{#- Every label of every level, once, with its code (labels, people and sensitive values become
    whole-number codes, which the search groups on far more cheaply than text) and how many
    records share it. Joined back below: one small table per level instead of a window over the
    whole class table for each (a window per level costs a sort of every class each). -#}
{%- for qi in plan.qis %}
{%- for level in range(qi.depth + 1) %}
, _k_v{{ qi.index }}_{{ level }} as (
  {%- set label = '_k_q' ~ qi.index ~ '_l' ~ level %}
  select {{ label }} as _k_label, row_number() over (order by {{ label }}) - 1 as _k_code, sum(_k_n) as _k_count
  from _k_grouped group by {{ label }}
)
{%- endfor %}
{%- endfor %}
{%- if plan.privacy_unit is not none %}
, _k_vp as (select _k_person_text, row_number() over (order by _k_person_text) as _k_code
{{- ' ' }}from _k_grouped group by _k_person_text)
{%- endif %}
{%- for name in plan.sensitive %}
, _k_vs{{ loop.index0 }} as (
  select _k_s{{ loop.index0 }}_text, row_number() over (order by _k_s{{ loop.index0 }}_text) as _k_code
  from _k_grouped where _k_s{{ loop.index0 }}_text is not null group by _k_s{{ loop.index0 }}_text
)
{%- endfor %}
{#- A label's loss is log2 of how many records share it over how many share the record's value,
    counted over every record going in. -#}
select
  _k_grouped.*
  {%- for qi in plan.qis %}
  {%- for level in range(qi.depth + 1) %},
  _k_v{{ qi.index }}_{{ level }}._k_code as _k_q{{ qi.index }}_c{{ level }}
  {%- if level > 0 %},
  ln(cast(_k_v{{ qi.index }}_{{ level }}._k_count as {{ double }})
  {{- ' ' }}/ cast(_k_v{{ qi.index }}_0._k_count as {{ double }})) / ln(2) as _k_q{{ qi.index }}_nue{{ level }}
  {%- endif %}
  {%- endfor %}
  {%- endfor %}
  {%- if plan.privacy_unit is not none %},
  _k_vp._k_code as _k_person
  {%- endif %}
  {%- for name in plan.sensitive %},
  _k_vs{{ loop.index0 }}._k_code as _k_s{{ loop.index0 }}
  {%- endfor %},
  0
  {%- for qi in plan.qis %}
  + ln(cast((select sum(_k_n) from _k_grouped) as {{ double }})
  {{- ' ' }}/ cast(_k_v{{ qi.index }}_0._k_count as {{ double }})) / ln(2)
  {%- endfor %} as _k_nue_top
from _k_grouped
{%- for qi in plan.qis %}
{%- for level in range(qi.depth + 1) %}
inner join _k_v{{ qi.index }}_{{ level }}
{{- ' ' }}on _k_v{{ qi.index }}_{{ level }}._k_label = _k_grouped._k_q{{ qi.index }}_l{{ level }}
{%- endfor %}
{%- endfor %}
{%- if plan.privacy_unit is not none %}
left join _k_vp on _k_vp._k_person_text = _k_grouped._k_person_text
{%- endif %}
{%- for name in plan.sensitive %}
left join _k_vs{{ loop.index0 }}
{{- ' ' }}on _k_vs{{ loop.index0 }}._k_s{{ loop.index0 }}_text = _k_grouped._k_s{{ loop.index0 }}_text
{%- endfor %}
{%- endmacro %}

{% macro _records_class_table_keys(plan) %}
  {%- set keys = [] -%}
  {%- for qi in plan.qis -%}
    {%- for level in range(qi.depth + 1) -%}{%- do keys.append('_k_q' ~ qi.index ~ '_l' ~ level) -%}{%- endfor -%}
  {%- endfor -%}
  {%- if plan.privacy_unit is not none -%}{%- do keys.append('_k_person_text') -%}{%- endif -%}
  {%- for name in plan.sensitive -%}{%- do keys.append('_k_s' ~ loop.index0 ~ '_text') -%}{%- endfor -%}
  {%- do keys.append('_k_missing') -%}
  {{ return(keys) }}
{% endmacro %}

{#- 1 when a record is suppressed up front: a NULL privacy unit, or under
    missing_value_policy='suppress' a missing quasi-identifier; else 0. -#}
{% macro _records_missing_flag(plan) %}
  {%- set conditions = [] -%}
  {%- if plan.privacy_unit is not none -%}
    {%- do conditions.append('_k_src.' ~ kanon._quote(plan.privacy_unit) ~ ' is null') -%}
  {%- endif -%}
  {%- if plan.missing_value_policy == 'suppress' -%}
    {%- for qi in plan.qis -%}{%- do conditions.append(kanon._records_is_missing(qi)) -%}{%- endfor -%}
  {%- endif -%}
  {{ return(('case when ' ~ (conditions | join(' or ')) ~ ' then 1 else 0 end') if conditions else '0') }}
{% endmacro %}

{#- Double precision on every warehouse (dbt.type_float() is single precision on DuckDB). -#}
{% macro _records_double() %}
  {{ return(adapter.dispatch('_records_double', 'kanon')()) }}
{% endmacro %}

{% macro default___records_double() %}
  {{ return('double precision') }}
{% endmacro %}

{#- Spark SQL spells it `double` (it does not parse `double precision`). -#}
{% macro spark___records_double() %}
  {{ return('double') }}
{% endmacro %}

{#- CTEs `_k_cls`, `_k_judged` (and `_k_entropy<j>`) over `source`, whose rows carry the class
    `keys`, _k_missing, _k_n, _k_person (with a privacy unit), _k_s<j>, _k_nue and _k_nue_top:
    one row per class with its records, size, loss and fate. Each CTE is followed by a comma. -#}
{% macro _records_judge_ctes(plan, source, keys) %}
  {%- set double = kanon._records_double() -%}
  {%- set key_list = keys | join(', ') -%}
_k_cls as (
  select
    {{ key_list }},
    sum(_k_n) as _k_records,
    {{ 'count(distinct _k_person)' if plan.privacy_unit is not none else 'sum(_k_n)' }} as _k_size,
    {%- for name in plan.sensitive %}
    count(distinct _k_s{{ loop.index0 }}) as _k_distinct{{ loop.index0 }},
    {%- endfor %}
    sum(_k_n * _k_nue) as _k_nue,
    sum(_k_n * _k_nue_top) as _k_nue_top
  from {{ source }}
  group by {{ key_list }}
),
{%- if plan.l is not none and plan.diversity == 'entropy' %}
{%- for name in plan.sensitive %}
_k_entropy{{ loop.index0 }} as (
  {{ kanon._records_entropy(key_list, '_k_s' ~ loop.index0, 'sum(_k_n)', source) }}
),
{%- endfor %}
{%- endif %}
_k_judged as (
  select
    _k_cls.*,
    case
      when _k_cls._k_missing = 1 then 'missing'
      when _k_cls._k_size < {{ plan.k }} then 'too_small'
      {%- if plan.l is not none %}
      when not ({{ kanon._records_diverse(plan) }}) then 'not_diverse'
      {%- endif %}
      else 'kept'
    end as _k_fate
  from _k_cls
  {%- if plan.l is not none and plan.diversity == 'entropy' %}
  {%- for name in plan.sensitive %}
  {%- set j = loop.index0 %}
  left join _k_entropy{{ j }} as _k_e{{ j }} on
    {%- for key in keys %} {% if not loop.first %}and {% endif %}_k_e{{ j }}.{{ key }} = _k_cls.{{ key }}{%- endfor %}
  {%- endfor %}
  {%- endif %}
),
{%- endmacro %}

{#- Whether a judged class is l-diverse in every sensitive column: at least l distinct values, or
    an entropy of at least ln(l) (with a tolerance for floating point). -#}
{% macro _records_diverse(plan) %}
  {%- set conditions = [] -%}
  {%- for name in plan.sensitive -%}
    {%- if plan.diversity == 'entropy' -%}
      {%- do conditions.append('coalesce(_k_e' ~ loop.index0 ~ '._k_h, 0) >= ln(' ~ plan.l ~ ') - 1e-9') -%}
    {%- else -%}
      {%- do conditions.append('_k_cls._k_distinct' ~ loop.index0 ~ ' >= ' ~ plan.l) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(conditions | join(' and ')) }}
{% endmacro %}

{#- `select <keys>, <entropy> as _k_h from ... group by <keys>`: the entropy of each class's
    values of a sensitive column (NULL is not a value): ln(n) - sum(n_v ln n_v) / n, n_v the
    `weight` of each value (sum(_k_n) over the class table, count(*) over records). One
    definition for the search and the gate's recount. -#}
{% macro _records_entropy(key_list, value, weight, source, condition='1 = 1') %}
  {%- set double = kanon._records_double() -%}
  select {{ key_list }}, ln(cast(sum(_k_vn) as {{ double }}))
  {{- ' ' }}- sum(_k_vn * ln(cast(_k_vn as {{ double }}))) / sum(_k_vn) as _k_h
  from (
    select {{ key_list }}, {{ value }}, {{ weight }} as _k_vn
    from {{ source }}
    where {{ condition }} and {{ value }} is not null
    group by {{ key_list }}, {{ value }}
  ) as _k_values
  group by {{ key_list }}
{%- endmacro %}
