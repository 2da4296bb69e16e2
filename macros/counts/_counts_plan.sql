{#-
  Validates the arguments of release_counts / release_decisions and resolves them into a plan:
  the dimensions with their real column names, hierarchy depths and the ladder as a list of
  absolute level vectors whose first step is all zeros (the PASS step).

  Argument checks that need no warehouse run at parse time too; checks that read column lists
  (missing or ambiguous columns, ladder levels deeper than a hierarchy) run at execute time.
  Every error names the macro the user called (`who`), the model and the argument.
-#}
{% macro _counts_plan(who, relation, privacy_unit, dimensions, hierarchies, k, ladder, measures, count_column,
    count_rows, null_policy, remainder=false, null_unit='ignore', dominance=none, delay=none, noise=none) %}
  {%- do kanon._check_relation(relation, 'relation', who) -%}
  {%- do kanon._check_k(k, who) -%}
  {%- do kanon._check_boolean(count_rows, 'count_rows', who) -%}
  {%- do kanon._check_boolean(remainder, 'remainder', who) -%}
  {%- do kanon._check_enum(null_policy, 'null_policy', ['root', 'suppress'], who) -%}
  {%- do kanon._check_enum(null_unit, 'null_unit', ['ignore', 'error'], who) -%}

  {%- set hierarchies = kanon._counts_check_dimensions(dimensions, hierarchies, who) -%}

  {%- if privacy_unit is not none and (privacy_unit is not string or privacy_unit | trim == '') -%}
    {{ exceptions.raise_compiler_error(who ~ ": privacy_unit must be a column name, got " ~ (privacy_unit | string)) }}
  {%- endif -%}
  {%- if not count_rows and privacy_unit is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": privacy_unit (the column identifying a person) is required; counting"
        ~ " rows instead needs count_rows=true") }}
  {%- endif -%}
  {%- if count_column is not string or count_column | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column must be a column name") }}
  {%- endif -%}
  {%- set measures = kanon._counts_check_measures(measures, privacy_unit, who) -%}
  {#- noise keys people (count_rows has none); a measure would be published exact beside it -#}
  {%- if noise is not none and (count_rows or measures | length > 0) -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise perturbs counts of people by their cell key,"
        ~ " so it takes neither count_rows=true nor measures (a measure would be published without noise);"
        ~ " release the measures in a model of their own") }}
  {%- endif -%}

  {#- The released columns: <dimension>, <dimension>_level, the count, the measures. Two that
      are equal up to letter case would clash (DuckDB) or confuse readers (Postgres); a name
      starting with _kanon_ would be taken by the materialization for one of its own. -#}
  {%- set outputs = [] -%}
  {%- for d in dimensions -%}
    {%- do outputs.extend([('dimension', d), ('level column of dimension ' ~ d, d ~ '_level')]) -%}
  {%- endfor -%}
  {%- do outputs.append(('count_column', count_column)) -%}
  {%- for m in measures -%}{%- do outputs.append(('measure', m)) -%}{%- endfor -%}
  {%- do kanon._check_published_columns(outputs, who,
                                        'each dimension, <dimension>_level, the count column and the measures') -%}

  {#- Execute-time checks: real column names and hierarchy depths. -#}
  {%- set source = {'columns': [], 'floats': []} -%}
  {%- if execute -%}
    {%- set source = kanon._relation_columns(relation, who) -%}
    {#- Measures read event columns, so the events carry every source column, listed by name:
        one named like the engine's own (_k_...) cannot be carried. -#}
    {%- if measures | length > 0 -%}
      {%- for name in source.columns if (name | lower).startswith('_k_') -%}
        {{ exceptions.raise_compiler_error(who ~ ": column '" ~ name ~ "' of " ~ relation
            ~ " starts with _k_, which kanon's engine reserves for its own columns; rename it in a view (or drop it)"
            ~ " before releasing with measures") }}
      {%- endfor -%}
    {%- endif -%}
  {%- endif -%}
  {%- set resolved_unit = kanon._resolve_column(privacy_unit, source.columns, 'privacy_unit', relation, who)
      if privacy_unit is string else none -%}

  {%- set dims = [] -%}
  {%- for d in dimensions -%}
    {%- set column = kanon._resolve_column(d, source.columns, 'dimension', relation, who) -%}
    {%- if column in (dims | map(attribute='column') | list) -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension '" ~ d ~ "' is listed twice (as column " ~ column ~ ")") }}
    {%- endif -%}
    {%- if resolved_unit is not none and column == resolved_unit -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension '" ~ d ~ "' is the privacy unit; breaking down by it would"
          ~ " publish one row per person") }}
    {%- endif -%}
    {#- Labels are compared as text, and warehouses write floats as text differently (2.0 / 2). -#}
    {%- if column in source.floats -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension column '" ~ d ~ "' is a floating-point column; "
          ~ "cast it to text, an integer or a fixed-point decimal first so every warehouse labels it alike") }}
    {%- endif -%}
    {%- set ns = namespace(levels=[]) -%}
    {%- set hierarchy = hierarchies.get(d) -%}
    {%- if hierarchy is not none and execute -%}
      {%- set ns.levels = kanon._hierarchy_level_columns(hierarchy) -%}
    {%- endif -%}
    {%- do dims.append({
        'name': d,
        'column': column,
        'hierarchy': hierarchy,
        'level_columns': ns.levels,
        'depth': (ns.levels | length - 1) if hierarchy is not none else 0
    }) -%}
  {%- endfor -%}

  {%- set steps = kanon._counts_ladder(dims, ladder, who) -%}
  {%- set delay = kanon._counts_delay(delay, source.columns, relation, who) -%}
  {%- if delay is not none and resolved_unit is not none and delay.column == resolved_unit -%}
    {{ exceptions.raise_compiler_error(who ~ ": delay's column '" ~ delay.column ~ "' is the privacy unit; give the"
        ~ " column holding each event's time") }}
  {%- endif -%}

  {{ return({
      'who': who,
      'relation': relation,
      'privacy_unit': resolved_unit,
      'source_columns': source.columns,
      'dims': dims,
      'steps': steps,
      'k': k,
      'measures': measures,
      'count_column': count_column,
      'count_rows': count_rows,
      'null_policy': null_policy,
      'null_unit': null_unit,
      'remainder': remainder,
      'dominance': kanon._counts_dominance(dominance, count_rows, privacy_unit, who),
      'delay': delay,
      'noise': kanon._noise_plan(noise, k, who),
  }) }}
{% endmacro %}

{#- dimensions: a non-empty list of column names; hierarchies: a mapping {dimension: relation}
    (none for {}) naming dimensions only. Returns the hierarchies. -#}
{% macro _counts_check_dimensions(dimensions, hierarchies, who) %}
  {%- if dimensions is string or dimensions is mapping or dimensions is not iterable or dimensions | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": dimensions must be a non-empty list of column names") }}
  {%- endif -%}
  {%- for d in dimensions -%}
    {%- if d is not string or d | trim == '' -%}
      {{ exceptions.raise_compiler_error(who ~ ": every dimension must be a column name, got " ~ (d | string)) }}
    {%- endif -%}
  {%- endfor -%}

  {%- set hierarchies = hierarchies if hierarchies is not none else {} -%}
  {%- if hierarchies is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": hierarchies must be a mapping {dimension: relation}") }}
  {%- endif -%}
  {%- for name in hierarchies -%}
    {%- do kanon._check_relation(hierarchies[name], "the hierarchy of '" ~ name ~ "'", who) -%}
    {%- if name not in dimensions -%}
      {{ exceptions.raise_compiler_error(who ~ ": hierarchy given for '" ~ name
          ~ "', which is not one of the dimensions " ~ (dimensions | join(', '))
          ~ " (names must be spelled as in dimensions)") }}
    {%- endif -%}
  {%- endfor -%}
  {{ return(hierarchies) }}
{% endmacro %}

{#- The dominance rule of a release, checked and normalized (none when not asked for). A row is
    sensitive, and treated as thin, when a few people make up most of a sum-like measure:
      {'rule': 'nk', 'value': '<SQL per event>', 'n': 1 or 2, 'k': percent}
          (n, k)-dominance: the n largest contributors hold more than k % of the row's total;
      {'rule': 'p_percent', 'value': '<SQL per event>', 'p': percent}
          p % rule: the total less the two largest contributions is below p % of the largest, so
          the second largest contributor could estimate the largest to within p %.
    A contributor is a person (privacy unit); their contribution is the sum of `value` over their
    events in the row. Values are expected to be >= 0, as for counts and amounts. -#}
{% macro _counts_dominance(dominance, count_rows, privacy_unit, who) %}
  {%- if dominance is none -%}{{ return(none) }}{%- endif -%}
  {%- if dominance is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": dominance must be a mapping such as {'rule': 'nk', 'value': 'amount',"
        ~ " 'n': 2, 'k': 85}, got " ~ (dominance | string)) }}
  {%- endif -%}
  {%- if privacy_unit is none or count_rows -%}
    {{ exceptions.raise_compiler_error(who ~ ": dominance needs a privacy_unit and count_rows=false: its contributors"
        ~ " are people") }}
  {%- endif -%}
  {%- set rule = kanon._check_enum(dominance.get('rule'), "dominance's rule", ['nk', 'p_percent'], who) -%}
  {%- set value = dominance.get('value') -%}
  {%- if value is not string or value | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": dominance's value must be a SQL expression per event (for example"
        ~ " 'amount', or '1' for a count of events), got " ~ (value | string)) }}
  {%- endif -%}
  {%- if kanon._sql_mentions(value, privacy_unit) -%}
    {{ exceptions.raise_compiler_error(who ~ ": dominance's value references the privacy unit column '" ~ privacy_unit
        ~ "'") }}
  {%- endif -%}
  {%- set allowed = ['rule', 'value', 'n', 'k'] if rule == 'nk' else ['rule', 'value', 'p'] -%}
  {%- for key in dominance if key not in allowed -%}
    {{ exceptions.raise_compiler_error(who ~ ": dominance with rule '" ~ rule ~ "' takes " ~ (allowed | join(', '))
        ~ ", not '" ~ key ~ "'") }}
  {%- endfor -%}
  {%- if rule == 'nk' -%}
    {%- set n = kanon._check_whole_number(dominance.get('n'), "dominance's n", who, 1) -%}
    {%- if n > 2 -%}
      {{ exceptions.raise_compiler_error(who ~ ": dominance's n must be 1 or 2, got " ~ n) }}
    {%- endif -%}
    {%- set threshold = dominance.get('k') -%}
    {%- if threshold is boolean or threshold is not number or threshold <= 0 or threshold >= 100 -%}
      {{ exceptions.raise_compiler_error(who ~ ": dominance's k must be a percentage between 0 and 100 (85 for 85 %),"
          ~ " got " ~ (threshold | string)) }}
    {%- endif -%}
    {{ return({'rule': rule, 'value': value, 'n': n, 'k': threshold}) }}
  {%- else -%}
    {%- set p = dominance.get('p') -%}
    {%- if p is boolean or p is not number or p <= 0 or p >= 100 -%}
      {{ exceptions.raise_compiler_error(who ~ ": dominance's p must be a percentage between 0 and 100 (10 for 10 %),"
          ~ " got " ~ (p | string)) }}
    {%- endif -%}
    {{ return({'rule': rule, 'value': value, 'p': p}) }}
  {%- endif -%}
{% endmacro %}

{#- measures: a mapping {column name: aggregate SQL expression}, none of which reads the privacy
    unit. Returns it ({} for none). -#}
{% macro _counts_check_measures(measures, privacy_unit, who) %}
  {%- set measures = measures if measures is not none else {} -%}
  {%- if measures is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": measures must be a mapping {column name: aggregate SQL expression}") }}
  {%- endif -%}
  {%- for name, expression in measures.items() -%}
    {%- if name is not string or name | trim == '' or expression is not string or expression | trim == '' -%}
      {{ exceptions.raise_compiler_error(who ~ ": measure " ~ (name | string)
          ~ " must be a name with an aggregate SQL expression, got " ~ (expression | string)) }}
    {%- endif -%}
    {#- A measure over the privacy unit (string_agg of the ids, min(id), count(distinct id) ...)
        publishes or narrows down who is in a row: refused, naming the measure. -#}
    {%- if privacy_unit is string and kanon._sql_mentions(expression, privacy_unit) -%}
      {{ exceptions.raise_compiler_error(who ~ ": measure '" ~ name ~ "' references the privacy unit column '"
          ~ privacy_unit ~ "'; a measure may not read the column identifying people"
          ~ " (the count column already counts them)") }}
    {%- endif -%}
  {%- endfor -%}

  {{ return(measures) }}
{% endmacro %}
