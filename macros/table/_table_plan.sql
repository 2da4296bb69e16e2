{#-
  kanon.release_table's arguments, checked and resolved into a plan before anything runs: the
  dimensions in order (each with its real column name and, when it has one, its hierarchy and
  level columns), the privacy unit (or the explicit opt-in to count rows), k, the published
  column names and the options. `row_dimension` and `column_dimension` are the two-way table's
  shorthand for dimensions=[row_dimension, column_dimension]. Every error names the macro the
  user called (`who`), the model and the argument.

  A dimension's nodes are its values (level 0) and, up its hierarchy, the labels of every level
  above (level 1 ...), the top level being the table's total (shown as total_label); a flat
  dimension's only level above its values is the total (level 1). plan.dims[i].top is that level.
  plan.step is how far every protecting cube must be able to move: 1, or `protection` rounded up.
  plan.noise is the resolved noise (_noise_plan; none for an exact table): a noisy table is
  protected by perturbing every cell and total (docs/reference/noise.md, "Tables with totals"),
  not by secondary cells, so it takes neither a protection width nor a linked table.
-#}
{% macro _table_plan(who, relation, privacy_unit, dimensions, hierarchies, row_dimension, column_dimension, k,
    count_column, count_rows, hide_zeros, total_label, null_unit, protection=none, linked_to=none, noise=none) %}
  {%- do kanon._check_relation(relation, 'relation', who) -%}
  {%- do kanon._check_k(k, who) -%}
  {%- if noise is mapping and noise.get('mode') == 'dp' -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": noise mode 'dp' (differential privacy) is for count releases (kanon.release_counts);"
        ~ " a table with totals takes mode 'cell_key' (docs/reference/noise.md)") }}
  {%- endif -%}
  {%- set noise = kanon._noise_plan(noise, k, who) -%}
  {%- do kanon._table_plan_noise_conflicts(who, noise, count_rows, protection, linked_to) -%}
  {%- do kanon._check_boolean(count_rows, 'count_rows', who) -%}
  {%- do kanon._check_boolean(hide_zeros, 'hide_zeros', who) -%}
  {%- do kanon._check_enum(null_unit, 'null_unit', ['ignore', 'error'], who) -%}
  {%- do kanon._check_column_name(count_column, 'count_column', who) -%}
  {%- if total_label is not string or total_label | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": total_label must be a non-empty text, got "
        ~ kanon._describe_value(total_label)) }}
  {%- endif -%}
  {%- if privacy_unit is not none -%}
    {%- do kanon._check_column_name(privacy_unit, 'privacy_unit', who) -%}
  {%- elif not count_rows -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": privacy_unit (the column identifying a person) is required; counting rows instead needs"
        ~ " count_rows=true") }}
  {%- endif -%}
  {%- if count_rows and privacy_unit is not none -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": count_rows=true counts rows, not the people of privacy_unit; give one of them") }}
  {%- endif -%}
  {#- With zeros shown a primary mark says 0 < x < k: for k=2 that is x = 1, the value itself. -#}
  {%- if k == 2 and not hide_zeros -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": with k=2 and zeros shown, a hidden cell marked <2 can only hold 1, so the mark "
        ~ "publishes the value; use k >= 3, or hide_zeros=true") }}
  {%- endif -%}

  {#- protection: every hidden cell's interval at least this wide, so cubes must move by this
      many whole steps; a primary's mark spans k-1-lo values, so no more than that -#}
  {%- set lo = 0 if hide_zeros else 1 -%}
  {%- if protection is not none and (protection is boolean or protection is not number or protection <= 0) -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": protection must be a number of people above 0 (the narrowest interval a hidden cell "
        ~ "may have), or none, got " ~ kanon._describe_value(protection)) }}
  {%- endif -%}
  {%- set step = 1 if protection is none else ((protection | round(0, 'ceil')) | int) -%}
  {%- if step > k - 1 - lo -%}
    {{ exceptions.raise_compiler_error(who ~ ": protection=" ~ protection ~ " cannot be met: a cell marked <" ~ k
        ~ " is known to lie in "
        ~ lo ~ ".." ~ (k - 1) ~ ", an interval " ~ (k - 1 - lo) ~ " wide; use at most " ~ (k - 1 - lo)
        ~ (" or hide_zeros=true" if not hide_zeros else "") ~ ", or a larger k") }}
  {%- endif -%}

  {%- set named = kanon._table_plan_dimension_names(who, dimensions, hierarchies, row_dimension, column_dimension) -%}
  {%- set dimensions, hierarchies = named.dimensions, named.hierarchies -%}

  {#- Published columns: per dimension its label, <d>_level and, with a hierarchy, <d>_parent;
      the count, status and display; per dimension <d>_additive. -#}
  {%- set outputs = [] -%}
  {%- for d in dimensions -%}
    {%- do outputs.append(('dimension', d)) -%}
    {%- do outputs.append(('level column of ' ~ d, d ~ '_level')) -%}
    {%- if d in hierarchies -%}{%- do outputs.append(('parent column of ' ~ d, d ~ '_parent')) -%}{%- endif -%}
  {%- endfor -%}
  {%- do outputs.extend([('count_column', count_column), ('the status column', 'status'),
      ('the display column', 'display')]) -%}
  {%- for d in dimensions -%}{%- do outputs.append(('additive column of ' ~ d, d ~ '_additive')) -%}{%- endfor -%}
  {%- do kanon._check_published_columns(outputs, who,
      'each dimension, <dimension>_level (and <dimension>_parent with a hierarchy), the count column, status,'
      ~ ' display and <dimension>_additive') -%}

  {#- The relation's real column names, as the warehouse resolves them. -#}
  {%- set source = kanon._relation_columns(relation, who) -%}
  {%- set unit = kanon._resolve_column(privacy_unit, source.columns, 'privacy_unit', relation, who)
      if privacy_unit is not none else none -%}
  {%- set dims = kanon._table_plan_dims(who, relation, source, unit, dimensions, hierarchies) -%}

  {{ return({
      'who': who,
      'relation': relation,
      'privacy_unit': unit,
      'count_rows': count_rows,
      'dims': dims,
      'k': k,
      'count_column': count_column,
      'hide_zeros': hide_zeros,
      'total_label': total_label,
      'null_unit': null_unit,
      'protection': protection,
      'step': step,
      'linked': kanon._table_linked_plan(who, linked_to, relation, source.columns, dims, k, hide_zeros),
      'noise': noise,
  }) }}
{% endmacro %}

{#- What noise cannot be combined with in a table: counting rows (no people to key), a protection
    width and a linked table (both are promises of the complementary search, which a noisy table
    does not run: its totals are perturbed instead). -#}
{% macro _table_plan_noise_conflicts(who, noise, count_rows, protection, linked_to) %}
  {%- if noise is none -%}{{ return(none) }}{%- endif -%}
  {%- set given = [] -%}
  {%- if count_rows is sameas true -%}{%- do given.append('count_rows=true') -%}{%- endif -%}
  {%- if protection is not none -%}{%- do given.append('protection') -%}{%- endif -%}
  {%- if linked_to is not none
      and not (linked_to is iterable and linked_to is not string and linked_to is not mapping
          and linked_to | length == 0) -%}
    {%- do given.append('linked_to') -%}
  {%- endif -%}
  {%- if given -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": noise perturbs every cell and total by its people's cell key instead of hiding further"
        ~ " cells, so it takes none of count_rows=true, protection and linked_to (given: " ~ given | join(', ')
        ~ "); release without noise to use them") }}
  {%- endif -%}
{% endmacro %}

{#- The dimensions as named (a list) and their hierarchies (a mapping), from dimensions=[...] or the
    two-way shorthand, checked: {dimensions, hierarchies}. -#}
{% macro _table_plan_dimension_names(who, dimensions, hierarchies, row_dimension, column_dimension) %}
  {#- dimensions, or the two-way shorthand: one way of naming them, not both -#}
  {%- if dimensions is none -%}
    {%- if row_dimension is none and column_dimension is none -%}
      {{ exceptions.raise_compiler_error(who ~ ": name the table's dimensions: dimensions=[...] (two or more columns), "
          ~ "or row_dimension and column_dimension for a two-way table") }}
    {%- endif -%}
    {%- do kanon._check_column_name(row_dimension, 'row_dimension', who) -%}
    {%- do kanon._check_column_name(column_dimension, 'column_dimension', who) -%}
    {%- set dimensions = [row_dimension, column_dimension] -%}
  {%- elif row_dimension is not none or column_dimension is not none -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": give dimensions=[...] or row_dimension and column_dimension, not both") }}
  {%- endif -%}
  {%- if dimensions is string or dimensions is mapping or dimensions is not iterable or dimensions | length < 2 -%}
    {{ exceptions.raise_compiler_error(who ~ ": dimensions must be a list of two or more column names, got "
        ~ kanon._describe_value(dimensions)) }}
  {%- endif -%}
  {#- Each cell's protection is a cube with a corner pair in every dimension: 2^n cells at least. -#}
  {%- if dimensions | length > 4 -%}
    {{ exceptions.raise_compiler_error(who ~ ": a table of " ~ dimensions | length
        ~ " dimensions is not supported (at most 4): " ~ "publish it as several tables of fewer dimensions") }}
  {%- endif -%}
  {%- for d in dimensions -%}
    {%- do kanon._check_column_name(d, 'dimensions', who) -%}
  {%- endfor -%}
  {%- set hierarchies = hierarchies if hierarchies is not none else {} -%}
  {%- if hierarchies is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": hierarchies must be a mapping {dimension: relation}, got "
        ~ kanon._describe_value(hierarchies)) }}
  {%- endif -%}
  {%- for name in hierarchies -%}
    {%- do kanon._check_relation(hierarchies[name], "the hierarchy of '" ~ name ~ "'", who) -%}
    {%- if name not in dimensions -%}
      {{ exceptions.raise_compiler_error(who ~ ": hierarchy given for '" ~ name
          ~ "', which is not one of the dimensions "
          ~ (dimensions | join(', ')) ~ " (names must be spelled as in dimensions)") }}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'dimensions': dimensions, 'hierarchies': hierarchies}) }}
{% endmacro %}

{#- plan.dims: each dimension with its real column (`source`: _relation_columns), hierarchy, level
    columns and top level, checked against the privacy unit's column `unit` and one another. -#}
{% macro _table_plan_dims(who, relation, source, unit, dimensions, hierarchies) %}
  {%- set dims = [] -%}
  {%- set seen = [] -%}
  {%- for d in dimensions -%}
    {%- set column = kanon._resolve_column(d, source.columns, 'dimensions', relation, who) -%}
    {%- if column in seen -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension '" ~ d ~ "' is named twice (column '" ~ column ~ "')") }}
    {%- endif -%}
    {%- do seen.append(column) -%}
    {%- if unit is not none and column == unit -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension '" ~ d
          ~ "' is the privacy unit; breaking down by it would publish one line per person") }}
    {%- endif -%}
    {#- Labels are compared as text, and warehouses write floats as text differently (2.0 / 2). -#}
    {%- if column in source.floats -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension '" ~ d ~ "' is a floating-point column; "
          ~ "cast it to text, an integer or a fixed-point decimal first so every warehouse labels it alike") }}
    {%- endif -%}
    {%- set hierarchy = hierarchies.get(d) -%}
    {%- set levels = kanon._hierarchy_level_columns(hierarchy) if hierarchy is not none else [] -%}
    {%- do dims.append({'name': d, 'column': column, 'hierarchy': hierarchy, 'level_columns': levels,
        'top': (levels | length - 1) if hierarchy is not none else 1}) -%}
    {%- if hierarchy is not none -%}
      {%- do kanon._hierarchy_validate(dims[-1], who) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(dims) }}
{% endmacro %}
