{#-
  Resolves a ladder into absolute level vectors, one per step, in dimension order.
  Step 0 is always all zeros: the finest cells, released as they are when they reach k (PASS).

  `ladder` is a list of steps; each step is a mapping {dimension: level}. Levels are absolute and
  cumulative: a dimension a step does not name keeps the level it had in the step before.
  Without a ladder, the default raises one dimension one level at a time until every dimension
  with a hierarchy is at its root, always the one that will be the least generalized after the
  step, measured as the share of its hierarchy climbed (level / depth); ties go to the dimension
  declared first. So a deep hierarchy (title -> subject -> class -> *) takes its first step
  before a shallow one (branch -> region -> *) loses half of its detail, and thin cells are
  coarsened where they are thinnest first. With equal depths this is round-robin.
-#}
{% macro _counts_ladder(dims, ladder, who) %}
  {%- set zeros = [] -%}
  {%- for d in dims -%}{%- do zeros.append(0) -%}{%- endfor -%}
  {#- Jinja scoping: state that changes inside loops lives in a namespace. -#}
  {%- set ns = namespace(current=zeros, steps=[zeros]) -%}

  {%- if ladder is none -%}
    {%- set total = dims | selectattr('hierarchy') | map(attribute='depth') | sum -%}
    {%- for _ in range(total) -%}
      {#- the dimension whose level after the step is the smallest share of its depth:
          (level + 1) / depth compared as (level_i + 1) * depth_j < (level_j + 1) * depth_i -#}
      {%- set best = namespace(i=none) -%}
      {%- for i in range(dims | length) if dims[i].hierarchy is not none and ns.current[i] < dims[i].depth -%}
        {%- if best.i is none or (ns.current[i] + 1) * dims[best.i].depth < (ns.current[best.i] + 1) * dims[i].depth -%}
          {%- set best.i = i -%}
        {%- endif -%}
      {%- endfor -%}
      {%- set i = best.i -%}
      {%- set ns.current = ns.current[:i] + [ns.current[i] + 1] + ns.current[i + 1:] -%}
      {%- set ns.steps = ns.steps + [ns.current] -%}
    {%- endfor -%}
    {{ return(ns.steps) }}
  {%- endif -%}

  {%- if ladder is string or ladder is mapping or ladder is not iterable -%}
    {{ exceptions.raise_compiler_error(who ~ ": ladder must be a list of steps, each a mapping {dimension: level}") }}
  {%- endif -%}
  {%- for step in ladder -%}
    {%- set step_no = loop.index -%}
    {%- if step is not mapping or step | length == 0 -%}
      {{ exceptions.raise_compiler_error(who ~ ": ladder step " ~ step_no
          ~ " must be a non-empty mapping {dimension: level}, got " ~ (step | string)) }}
    {%- endif -%}
    {%- for name, level in step.items() -%}
      {%- set found = namespace(index=none) -%}
      {%- for i in range(dims | length) if dims[i].name | lower == name | lower -%}
        {%- set found.index = i -%}
      {%- endfor -%}
      {%- if found.index is none -%}
        {{ exceptions.raise_compiler_error(who ~ ": ladder step " ~ step_no ~ " names '" ~ name
            ~ "', which is not one of the dimensions") }}
      {%- endif -%}
      {%- set i = found.index -%}
      {%- if dims[i].hierarchy is none -%}
        {{ exceptions.raise_compiler_error(who ~ ": ladder step " ~ step_no ~ " raises '" ~ name
            ~ "', which has no hierarchy (add it to hierarchies)") }}
      {%- endif -%}
      {%- if level is boolean or level is not number or (level | int) != level or level < 0 -%}
        {{ exceptions.raise_compiler_error(who ~ ": ladder step " ~ step_no ~ ": level of '" ~ name
            ~ "' must be a whole number >= 0, got " ~ (level | string)) }}
      {%- endif -%}
      {%- if execute and level > dims[i].depth -%}
        {{ exceptions.raise_compiler_error(who ~ ": ladder step " ~ step_no ~ " asks for level " ~ level
            ~ " of '" ~ name ~ "', but its hierarchy " ~ dims[i].hierarchy ~ " only goes up to level "
            ~ dims[i].depth) }}
      {%- endif -%}
      {%- set ns.current = ns.current[:i] + [level | int] + ns.current[i + 1:] -%}
    {%- endfor -%}
    {%- if ns.current != ns.steps[-1] -%}
      {%- set ns.steps = ns.steps + [ns.current] -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.steps) }}
{% endmacro %}
