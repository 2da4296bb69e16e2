{#-
  kanon.release_records' arguments, checked and resolved into a plan before anything runs:

    columns     every column of the relation, in its order, with its role (identifier,
                quasi_identifier, sensitive, keep, drop). A column the call does not declare
                refuses the release: an undeclared column could be an identifier.
    qis         the quasi-identifiers, each with its generalizer and depth (levels 0..depth;
                level 0 the value as text, the top level a single root):
                  hierarchy    a kanon hierarchy seed (level_0 = the leaf), depth = its levels - 1
                  bins         numeric edge lists, each keeping only edges of the one before
                               (merging neighbouring bins), depth = lists + 1
                  date         truncations among day, month, quarter, year, finer first,
                               depth = units + 1
                  suppression  no generalizer: the value, then '*' (depth 1)
    sensitive   kept as they are, subject to l-diversity; keep: kept as they are, unprotected;
    identifiers dropped, or replaced by a keyed-hash pseudonym (pseudonym: true).
-#}
{% macro _records_plan(who, relation, columns, k, l, diversity, privacy_unit, suppression_unit, loss,
    missing_value_policy, max_suppression, pseudonym_key_env, shuffle_seed) %}
  {%- do kanon._check_relation(relation, 'relation', who) -%}
  {%- do kanon._check_k(k, who) -%}
  {%- if columns is not mapping or columns | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": columns must map every column of " ~ relation ~ " to its role, e.g. "
        ~ "{'patron_id': 'identifier', 'age': {'role': 'quasi_identifier', 'bins': [[0, 20, 40, 65]]},"
        ~ " 'diagnosis': 'sensitive'}; got " ~ kanon._describe_value(columns)) }}
  {%- endif -%}
  {%- if l is not none -%}
    {%- do kanon._check_whole_number(l, 'l', who, minimum=2) -%}
  {%- endif -%}
  {%- do kanon._check_enum(diversity, 'diversity', ['distinct', 'entropy'], who) -%}
  {%- do kanon._check_enum(suppression_unit, 'suppression_unit', ['records', 'people'], who) -%}
  {%- do kanon._check_enum(loss, 'loss', kanon._records_loss_metrics(), who) -%}
  {%- do kanon._check_enum(missing_value_policy, 'missing_value_policy', ['star', 'suppress'], who) -%}
  {%- do kanon._check_share(max_suppression, 'max_suppression', who) -%}
  {%- if shuffle_seed is not string -%}
    {{ exceptions.raise_compiler_error(who ~ ": shuffle_seed must be text, got "
        ~ kanon._describe_value(shuffle_seed)) }}
  {%- endif -%}

  {%- set resolved = kanon._records_plan_columns(who, relation, columns) -%}
  {%- set plan = {'relation': relation, 'k': k, 'l': l, 'diversity': diversity if l is not none else none,
      'suppression_unit': suppression_unit, 'loss': loss, 'missing_value_policy': missing_value_policy,
      'max_suppression': max_suppression, 'pseudonym_key_env': pseudonym_key_env, 'shuffle_seed': shuffle_seed,
      'columns': resolved, 'qis': [], 'sensitive': [], 'privacy_unit': none} -%}
  {%- for c in resolved -%}
    {%- set allowed = kanon._records_role_options(c.role) -%}
    {%- for option in c.keys() if option not in ['role', 'name', 'column'] + allowed -%}
      {{ exceptions.raise_compiler_error(who ~ ": column '" ~ c.name ~ "' (" ~ c.role ~ ") has an unknown option '"
          ~ option ~ "'" ~ ((" (options of a " ~ c.role ~ ": " ~ (allowed | join(', ')) ~ ")") if allowed else '')) }}
    {%- endfor -%}
    {%- if c.role == 'quasi_identifier' -%}
      {%- do plan.qis.append(kanon._records_generalizer(c, plan.qis | length, who)) -%}
    {%- elif c.role == 'sensitive' -%}
      {%- do plan.sensitive.append(c.name) -%}
    {%- elif c.role == 'identifier' and c.get('pseudonym', false) is not boolean -%}
      {{ exceptions.raise_compiler_error(who ~ ": column '" ~ c.name ~ "': pseudonym must be true or false") }}
    {%- endif -%}
  {%- endfor -%}
  {%- if plan.qis | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": no column has the role quasi_identifier; a record release generalizes"
        ~ " the columns an attacker could know") }}
  {%- endif -%}
  {%- if l is not none and plan.sensitive | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": l=" ~ l ~ " needs at least one column with the role sensitive") }}
  {%- endif -%}
  {%- if privacy_unit is not none -%}
    {%- do kanon._check_column_name(privacy_unit, 'privacy_unit', who) -%}
    {%- set unit = resolved | selectattr('name', 'equalto', privacy_unit) | list -%}
    {%- for c in resolved if (c.name | lower) == (privacy_unit | lower) and not unit -%}
      {%- do unit.append(c) -%}
    {%- endfor -%}
    {%- if not unit -%}
      {{ exceptions.raise_compiler_error(who ~ ": privacy_unit '" ~ privacy_unit ~ "' is not a column of "
          ~ relation) }}
    {%- endif -%}
    {%- if unit[0].role not in ['identifier', 'drop'] -%}
      {{ exceptions.raise_compiler_error(who ~ ": the privacy unit '" ~ unit[0].name
          ~ "' says who a record is about; declare it identifier (dropped or pseudonymised) or drop, not "
          ~ unit[0].role) }}
    {%- endif -%}
    {%- do plan.update({'privacy_unit': unit[0].name}) -%}
  {%- endif -%}
  {%- do kanon._records_plan_check_years(who, relation, plan) -%}
  {%- set depths = plan.qis | map(attribute='depth') | list -%}
  {%- set ns = namespace(size=1) -%}
  {%- for depth in depths -%}{%- set ns.size = ns.size * (depth + 1) -%}{%- endfor -%}
  {%- do plan.update({'lattice_size': ns.size, 'max_height': depths | sum}) -%}
  {{ return(plan) }}
{% endmacro %}

{#- The relation's columns, each with its declared role (its spec, with name: the column's name as the
    warehouse spells it, and column: the column), in the relation's order. Every column must be
    declared and every declared column present. -#}
{% macro _records_plan_columns(who, relation, columns) %}
  {#- matched to the declared ones case-insensitively when unambiguous -#}
  {%- set present = adapter.get_columns_in_relation(relation) -%}
  {%- if present | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ relation
        ~ " has no columns: it does not exist or cannot be inspected") }}
  {%- endif -%}
  {%- set declared = {} -%}
  {%- for name, spec in columns.items() -%}
    {%- do kanon._check_column_name(name, 'a key of columns', who) -%}
    {%- if (name | lower).startswith('_k_') or (name | lower).startswith('_kanon_') -%}
      {{ exceptions.raise_compiler_error(who ~ ": column '" ~ name
          ~ "': names starting with _k_ or _kanon_ are kanon's own; rename the column") }}
    {%- endif -%}
    {%- set spec = {'role': spec} if spec is string else spec -%}
    {%- if spec is not mapping or spec.get('role') not in kanon._records_roles() -%}
      {{ exceptions.raise_compiler_error(who ~ ": column '" ~ name ~ "' needs a role, one of '"
          ~ (kanon._records_roles() | join("', '")) ~ "' (as text, or {'role': ...}), got "
          ~ kanon._describe_value(spec)) }}
    {%- endif -%}
    {%- do declared.update({name: spec}) -%}
  {%- endfor -%}
  {%- set resolved = [] -%}
  {%- set undeclared = [] -%}
  {%- set used = [] -%}
  {%- for column in present -%}
    {%- set ns = namespace(key=none) -%}
    {%- for name in declared if name == column.name -%}{%- set ns.key = name -%}{%- endfor -%}
    {%- if ns.key is none -%}
      {%- for name in declared if (name | lower) == (column.name | lower) -%}{%- set ns.key = name -%}{%- endfor -%}
    {%- endif -%}
    {%- if ns.key is none -%}
      {%- do undeclared.append(column.name) -%}
    {%- else -%}
      {%- do used.append(ns.key) -%}
      {%- do resolved.append(dict(declared[ns.key], name=column.name, column=column)) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if undeclared -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ relation ~ " has column(s) without a role: "
        ~ (undeclared | join(', ')) ~ ". Declare every column (identifier, quasi_identifier, sensitive, keep or drop):"
        ~ " an undeclared column could identify someone, so nothing is published until each has a role.") }}
  {%- endif -%}
  {%- set unknown = [] -%}
  {%- for name in declared if name not in used -%}{%- do unknown.append(name) -%}{%- endfor -%}
  {%- if unknown -%}
    {{ exceptions.raise_compiler_error(who ~ ": columns names column(s) that " ~ relation ~ " does not have: "
        ~ (unknown | join(', ')) ~ " (its columns: " ~ (present | map(attribute='name') | join(', ')) ~ ")") }}
  {%- endif -%}
  {{ return(resolved) }}
{% endmacro %}

{#- A date's labels write its year in four digits (_records_date_label): a year outside 1..9999
    would be cut or padded into another year's label (12345-01-05's day is 1234-01-05, the leaf
    1234-01-05's own label at level 0), so a label could stand for different dates at two
    levels. Such values (and, on DuckDB, infinite dates, which have no year) refuse the release. -#}
{% macro _records_plan_check_years(who, relation, plan) %}
  {%- set dated = plan.qis | selectattr('generalizer', 'equalto', 'date') | list -%}
  {%- if dated and execute -%}
    {%- set years_sql -%}
      select
        {%- for qi in dated %}
        {#- through timestamp: DuckDB 2.0 compares extract(year ...) of a TIMESTAMP_NS column from
            its statistics in the wrong unit (every 2024 was found above 9999) #}
        {%- set year = 'extract(year from cast(' ~ kanon._quote(qi.name) ~ ' as ' ~ dbt.type_timestamp() ~ '))' %}
        {% if not loop.first %}, {% endif %}count(case when {{ kanon._quote(qi.name) }} is not null
          and ({{ year }} is null or {{ year }} < 1 or {{ year }} > 9999) then 1 end)
        {%- endfor %}
      from {{ relation }}
    {%- endset -%}
    {%- set found = run_query(years_sql).rows[0] -%}
    {%- for qi in dated -%}
      {%- if found[loop.index0] | int > 0 -%}
        {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ qi.name ~ "' has "
            ~ (found[loop.index0] | int) ~ " value(s) outside the years 1 to 9999: its date labels write the year"
            ~ " in four digits, so such a value would be labelled as another year and a label could stand for"
            ~ " different dates at two levels; remove or correct them first") }}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
{% endmacro %}

{% macro _records_roles() %}
  {{ return(['identifier', 'quasi_identifier', 'sensitive', 'keep', 'drop']) }}
{% endmacro %}

{% macro _records_role_options(role) %}
  {{ return({'identifier': ['pseudonym'], 'quasi_identifier': ['hierarchy', 'bins', 'date']}.get(role, [])) }}
{% endmacro %}

{% macro _records_loss_metrics() %}
  {{ return(['non_uniform_entropy', 'discernibility', 'height']) }}
{% endmacro %}

{#- A quasi-identifier's generalizer, checked: {name, index, generalizer, depth, and hierarchy /
    level_columns (the keys kanon's hierarchy macros read), bins, or units}. -#}
{% macro _records_generalizer(c, index, who) %}
  {%- set given = [] -%}
  {%- for option in ['hierarchy', 'bins', 'date'] if c.get(option) is not none -%}
    {%- do given.append(option) -%}
  {%- endfor -%}
  {%- if given | length > 1 -%}
    {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ c.name ~ "' has more than one generalizer ("
        ~ (given | join(', ')) ~ "); give one") }}
  {%- endif -%}
  {%- set q = {'name': c.name, 'index': index, 'generalizer': given[0] if given else 'suppression', 'hierarchy': none,
               'level_columns': []} -%}
  {%- if q.generalizer == 'hierarchy' -%}
    {%- do kanon._check_relation(c.hierarchy, "the hierarchy of '" ~ c.name ~ "'", who) -%}
    {%- set levels = kanon._hierarchy_level_columns(c.hierarchy) -%}
    {%- do q.update({'hierarchy': c.hierarchy, 'level_columns': levels, 'depth': levels | length - 1}) -%}
    {%- do kanon._hierarchy_validate(q, who) -%}
  {%- elif q.generalizer == 'bins' -%}
    {%- set lists = c.bins if c.bins is iterable and c.bins | length > 0 and c.bins[0] is iterable
                              and c.bins[0] is not string else [c.bins] -%}
    {%- set ns = namespace(previous=none) -%}
    {%- for edges in lists -%}
      {%- if edges is string or edges is not iterable or edges | length == 0
            or (edges | reject('number') | list) or (edges | select('boolean') | list) -%}
        {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ c.name
            ~ "': bins must be a list of numbers such as [0, 20, 40, 65], or a list of such lists from finest to"
            ~ " coarsest; got " ~ kanon._describe_value(c.bins)) }}
      {%- endif -%}
      {%- if edges | list != edges | unique | sort | list -%}
        {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ c.name
            ~ "': bin edges must be strictly increasing, got " ~ edges) }}
      {%- endif -%}
      {%- if ns.previous is not none and (edges | reject('in', ns.previous) | list) -%}
        {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ c.name
            ~ "': each coarser list of bin edges must keep only edges of the list before it"
            ~ " (so that its bins merge whole bins), but " ~ edges ~ " has "
            ~ (edges | reject('in', ns.previous) | list) ~ " not in " ~ ns.previous) }}
      {%- endif -%}
      {%- set ns.previous = edges -%}
    {%- endfor -%}
    {%- if not kanon._column_is_number(c.column) -%}
      {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ c.name
          ~ "' is binned, so it must be a number; it is " ~ c.column.dtype) }}
    {%- endif -%}
    {%- do q.update({'bins': lists, 'depth': lists | length + 1}) -%}
  {%- elif q.generalizer == 'date' -%}
    {%- set units = [c.date] if c.date is string else c.date -%}
    {%- set known = ['day', 'month', 'quarter', 'year'] -%}
    {%- if units is not iterable or units | length == 0 or (units | reject('in', known) | list)
          or units | list != (known | select('in', units) | list) -%}
      {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ c.name
          ~ "': date must list truncations among 'day', 'month', 'quarter', 'year', finest first, each once,"
          ~ " e.g. ['month', 'year']; got " ~ kanon._describe_value(c.date)) }}
    {%- endif -%}
    {%- if 'date' not in (c.column.dtype | lower) and 'time' not in (c.column.dtype | lower) -%}
      {{ exceptions.raise_compiler_error(who ~ ": quasi-identifier '" ~ c.name
          ~ "' is truncated as a date, so it must be a date or timestamp; it is " ~ c.column.dtype) }}
    {%- endif -%}
    {%- do q.update({'units': units, 'depth': units | length + 1}) -%}
  {%- else -%}
    {%- do q.update({'depth': 1}) -%}
  {%- endif -%}
  {{ return(q) }}
{% endmacro %}
