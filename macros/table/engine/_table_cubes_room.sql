{#-
  How far a cell of a cube can move (_table_cubes.sql has the bounds it must stay within): up
  and down, as SQL over a cell's columns, within its mark and the lines that are not additive,
  and a corner's room in either direction of its cube.
-#}

{#- How far corner `x` (an alias) can rise, in whole steps (_table_room_cap when nothing bounds
    it): a primary to k - 1; and past no parent of a line that is not additive, unless that
    parent rises with it (`moved`: a format with {i}, 1 when the corner's parent along dimension
    i is in the cube's move along i). -#}
{% macro _table_rise_room(x, k, n, moved) -%}
  {%- set rooms = ['case when ' ~ x ~ "._k_status = 'primary' then " ~ (k - 1) ~ ' - ' ~ x ~ '._k_n else '
      ~ kanon._table_room_cap() ~ ' end'] -%}
  {%- for i in range(n) -%}
    {%- do rooms.append('case when ' ~ x ~ '._k_cap' ~ i ~ ' is null or ' ~ moved.replace('{i}', i | string)
        ~ ' = 1 then ' ~ kanon._table_room_cap() ~ ' else ' ~ x ~ '._k_cap' ~ i ~ ' - ' ~ x ~ '._k_n end') -%}
  {%- endfor -%}
  least({{ rooms | join(', ') }})
{%- endmacro %}

{#- How far corner `x` can fall: a primary to lo, any other to k; and a total of a line that is
    not additive to its largest child, or to the next largest when the largest is the child
    falling with it (`falling`: a format with {i}, the node of the cube's move along i one level
    below the corner's, NULL when none or unknown). -#}
{% macro _table_fall_room(x, k, lo, n, falling) -%}
  {%- set rooms = ['case when ' ~ x ~ "._k_status = 'primary' then " ~ x ~ '._k_n - ' ~ lo ~ ' else ' ~ x ~ '._k_n - '
      ~ k ~ ' end'] -%}
  {%- for i in range(n) -%}
    {%- do rooms.append('case when ' ~ x ~ '._k_floor' ~ i ~ ' is null then ' ~ kanon._table_room_cap() ~ ' when ' ~ x
        ~ '._k_topd' ~ i ~ ' = '
        ~ falling.replace('{i}', i | string) ~ ' then ' ~ x ~ '._k_n - ' ~ x ~ '._k_next' ~ i ~ ' else ' ~ x
        ~ '._k_n - ' ~ x ~ '._k_floor' ~ i ~ ' end') -%}
  {%- endfor -%}
  least({{ rooms | join(', ') }})
{%- endmacro %}

{#- The room of a cell nothing bounds (more than any count). -#}
{% macro _table_room_cap() %}
  {{ return('1000000000') }}
{% endmacro %}

{#- How far corner `x` of a cube, whose moves' support rows are `s`0..`s`n-1, can move in direction
    `direction` of the cube: it moves by the product of its signs times the direction, its
    moves relaxing its bounds (_table_rise_room, _table_fall_room, with _k_up and _k_down of `s`). -#}
{% macro _table_corner_room(x, s, n, k, lo, direction) -%}
  {%- set sign = [] -%}
  {%- for i in range(n) -%}{%- do sign.append(s ~ i ~ '._k_sign') -%}{%- endfor -%}
  case when {{ sign | join(' * ') }} * {{ direction }} = 1 then {{ kanon._table_rise_room(x, k, n, s ~ '{i}._k_up') }}
    else {{ kanon._table_fall_room(x, k, lo, n, s ~ '{i}._k_down') }} end
{%- endmacro %}
