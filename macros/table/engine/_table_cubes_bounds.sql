{#-
  The bounds of the cube engine's first try (_table_cubes_sql's `limit` and `moves`): how many
  leaves per line and moves per dimension it combines, and when a table is small enough for
  every cube to be tried at once. A cell the first try finds no cube for is tried again without
  bounds, so the bounds only ever save time. The search and the gate's no_exact_disclosure
  share them.
-#}

{#- The bounds of a first try (_table_cubes_sql's `limit` and `moves`) for the table whose leaves'
    paths are `anc`<i>, as {'limit', 'moves'}; none when a first try is not worth making:
    - when the bounds could prune nothing, every dimension having no more leaves than `limit`
      and (where moves are bounded) no more moves through a target than `moves`. A move through
      a target runs from one of its line's leaves to another or to the top, so at most L * (L + 1)
      of them for L leaves;
    - or when every cube is few (_table_one_try_cubes): the cubes through a cell are at most the
      product of those moves per dimension.
    Then a first try tries every cube, and a second try without bounds, which would find nothing
    more, is not made: on small tables a second query of every round, whose planning costs more
    than its rows (DuckDB, Postgres), and a second statement of every step (Spark, where a
    statement costs a fraction of a second, ADR 10). The cheapest cube of all is picked, never a
    costlier one from within the bounds. One query. -#}
{% macro _table_first_try_bounds(n, anc) %}
  {%- set limit, moves = kanon._table_pick_limit(), kanon._table_move_limit(n) -%}
  {%- set leaves = [] -%}
  {%- for i in range(n) -%}{%- do leaves.append('(select count(*) from ' ~ anc ~ i ~ ' where _k_al = 0)') -%}
  {%- endfor -%}
  {%- set counts = run_query('select ' ~ (leaves | join(', '))).rows[0] -%}
  {%- set ns = namespace(cubes=1, pruned=false) -%}
  {%- for count in counts -%}
    {%- set count = count | int -%}
    {%- set ns.cubes = ns.cubes * count * (count + 1) -%}
    {%- if count > limit or (moves is not none and count * (count + 1) > moves) -%}
      {%- set ns.pruned = true -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'limit': limit, 'moves': moves} if ns.pruned and ns.cubes > kanon._table_one_try_cubes() else none) }}
{% endmacro %}

{#- How many leaves per line and kind (hidden, publishable) a move may end at in a first try
    (_table_cubes_sql), and so how many hidden leaves per line a protection check tries first.
    Eight: in the benchmark's 1,000 x 100 table nearly every cell is settled within them, and a
    line no longer than this is never pruned. -#}
{% macro _table_pick_limit() %}
  {{ return(8) }}
{% endmacro %}

{#- How many moves per dimension (the cheapest on the cell's own lines) a first try combines into
    cubes: the cubes tried per cell are this to the power of the dimensions, so it falls as they
    grow (2: every move of the bounded leaves; 3: 216 cubes; 4: 256). The picks and the
    protection checks (the search's and the gate's) alike; the cells a first try leaves are
    tried again with every move. -#}
{% macro _table_move_limit(n) %}
  {{ return(none if n <= 2 else (6 if n == 3 else 4)) }}
{% endmacro %}

{#- At most how many cubes through a cell (the product of each dimension's moves, see
    _table_first_try_bounds) for the search to try them all at once: tables of a few leaves
    per dimension, where the bounds would save rows but cost a second query. Three
    dimensions of 5, 2 and 3 leaves: 30 x 6 x 12 = 2,160. -#}
{% macro _table_one_try_cubes() %}
  {{ return(4096) }}
{% endmacro %}
