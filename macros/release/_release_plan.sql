{#-
  Validates the arguments of release_counts (and the audit that shares them) and resolves them
  into a plan: the dimensions with their real column names, hierarchy depths and the ladder as a
  list of absolute level vectors whose first step is all zeros (the PASS step).

  Argument checks that need no warehouse run at parse time too; checks that read column lists
  (missing columns, ladder levels deeper than a hierarchy) run at execute time.
-#}
{% macro _release_plan(relation, privacy_unit, dimensions, hierarchies, k, ladder, measures, count_column, count_rows, null_policy) %}
  {%- set who = 'kanon.release_counts' -%}

  {%- do kanon._check_k(k, who) -%}

  {#- dimensions: a non-empty list of distinct column names -#}
  {%- if dimensions is string or dimensions is mapping or dimensions is not iterable or dimensions | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": dimensions must be a non-empty list of column names") }}
  {%- endif -%}
  {%- set lowered = [] -%}
  {%- for d in dimensions -%}
    {%- if d is not string or d | trim == '' -%}
      {{ exceptions.raise_compiler_error(who ~ ": every dimension must be a column name, got " ~ (d | string)) }}
    {%- endif -%}
    {%- if d | lower in lowered -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension '" ~ d ~ "' is listed twice") }}
    {%- endif -%}
    {%- do lowered.append(d | lower) -%}
  {%- endfor -%}

  {%- set hierarchies = hierarchies if hierarchies is not none else {} -%}
  {%- if hierarchies is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": hierarchies must be a mapping {dimension: relation}") }}
  {%- endif -%}
  {%- for name in hierarchies -%}
    {%- if name | lower not in lowered -%}
      {{ exceptions.raise_compiler_error(who ~ ": hierarchy given for '" ~ name ~ "', which is not one of the dimensions " ~ (dimensions | join(', '))) }}
    {%- endif -%}
  {%- endfor -%}

  {%- if not count_rows and (privacy_unit is not string or privacy_unit | trim == '') -%}
    {{ exceptions.raise_compiler_error(who ~ ": privacy_unit (the column identifying a person) is required; counting rows instead needs count_rows=true") }}
  {%- endif -%}
  {%- if null_policy not in ['root', 'suppress'] -%}
    {{ exceptions.raise_compiler_error(who ~ ": null_policy must be 'root' or 'suppress', got " ~ (null_policy | string)) }}
  {%- endif -%}
  {%- if count_column is not string or count_column | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column must be a column name") }}
  {%- endif -%}
  {%- set measures = measures if measures is not none else {} -%}
  {%- if measures is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": measures must be a mapping {column name: aggregate SQL expression}") }}
  {%- endif -%}
  {%- set taken = [count_column | lower] -%}
  {%- for d in dimensions -%}{%- do taken.extend([d | lower, (d ~ '_level') | lower]) -%}{%- endfor -%}
  {%- for m in measures -%}
    {%- if m | lower in taken -%}
      {{ exceptions.raise_compiler_error(who ~ ": measure name '" ~ m ~ "' clashes with another released column") }}
    {%- endif -%}
    {%- do taken.append(m | lower) -%}
  {%- endfor -%}

  {#- Execute-time checks: real column names and hierarchy depths. -#}
  {%- set source_columns = {} -%}
  {%- if execute -%}
    {%- set float_columns = [] -%}
    {%- for col in adapter.get_columns_in_relation(relation) -%}
      {%- do source_columns.update({col.name | lower: col.name}) -%}
      {%- if col.is_float() -%}{%- do float_columns.append(col.name | lower) -%}{%- endif -%}
    {%- endfor -%}
    {%- if source_columns | length == 0 -%}
      {{ exceptions.raise_compiler_error(who ~ ": relation " ~ relation ~ " has no columns or does not exist") }}
    {%- endif -%}
    {%- if not count_rows and privacy_unit | lower not in source_columns -%}
      {{ exceptions.raise_compiler_error(who ~ ": privacy_unit column '" ~ privacy_unit ~ "' is not a column of " ~ relation) }}
    {%- endif -%}
  {%- endif -%}

  {%- set dims = [] -%}
  {%- for d in dimensions -%}
    {%- if execute and d | lower not in source_columns -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension column '" ~ d ~ "' is not a column of " ~ relation) }}
    {%- endif -%}
    {#- Labels are compared as text, and warehouses write floats as text differently (2.0 / 2). -#}
    {%- if execute and d | lower in float_columns -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension column '" ~ d ~ "' is a floating-point column; "
          ~ "cast it to text, an integer or a fixed-point decimal first so every warehouse labels it alike") }}
    {%- endif -%}
    {%- set ns = namespace(hierarchy=none, levels=[]) -%}
    {%- for name, rel in hierarchies.items() if name | lower == d | lower -%}
      {%- set ns.hierarchy = rel -%}
    {%- endfor -%}
    {%- if ns.hierarchy is not none and execute -%}
      {%- set ns.levels = kanon._hierarchy_level_columns(ns.hierarchy) -%}
    {%- endif -%}
    {%- do dims.append({
        'name': d,
        'column': source_columns.get(d | lower, d),
        'hierarchy': ns.hierarchy,
        'level_columns': ns.levels,
        'depth': (ns.levels | length - 1) if ns.hierarchy is not none else 0
    }) -%}
  {%- endfor -%}

  {%- set steps = kanon._release_ladder(dims, ladder, who) -%}

  {{ return({
      'relation': relation,
      'privacy_unit': source_columns.get(privacy_unit | lower, privacy_unit) if privacy_unit is string else none,
      'dims': dims,
      'steps': steps,
      'k': k,
      'measures': measures,
      'count_column': count_column,
      'count_rows': count_rows,
      'null_policy': null_policy
  }) }}
{% endmacro %}
