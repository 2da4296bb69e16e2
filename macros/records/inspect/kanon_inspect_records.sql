{#-
  dbt run-operation kanon_inspect_records --args '{relation: "my_schema.people"}'
  dbt run-operation kanon_inspect_records --args '{model: people}'

  Before a record-level release (kanon.release_records): what each column of a table looks like,
  and the role kanon suggests for it. For every column: its type, the rows, non-null rows,
  distinct values, NULL share, uniqueness (distinct non-null values / non-null rows), for text
  the average length, and a suggested role (identifier, quasi_identifier or keep) with the
  reason; the rules and thresholds are _inspect_records_role's and _inspect_records_rules'.
  Suggestions only: the column's meaning decides (a diagnosis is the sensitive attribute of an
  extract about diagnoses, whatever its cardinality).

  Aggregates only, never a value of the data: no minimum, maximum, example or most frequent
  value. All columns are measured in one query. Printed as a table (log, info), and emitted as
  one KANON_JSON line, {relation, rows, columns: [{name, type, rows, non_null, nulls,
  null_share, distinct, uniqueness, avg_length, role, reason}], thresholds}. Only reads (see
  _cli_read_only).

  Give exactly one of
    relation  the table or view: its name as text ('table', 'schema.table',
              'database.schema.table'; double-quote parts with dots or spaces; on Postgres a
              quoted part is matched as spelled, any other up to letter case), or a relation
              when called from Jinja
    model     the name of a model, seed or snapshot of the project (or its packages), read where
              the project's configs put it
-#}
{% macro kanon_inspect_records(relation=none, model=none) %}
  {%- set who = 'kanon.kanon_inspect_records' -%}
  {%- if (relation is none) == (model is none) -%}
    {{ exceptions.raise_compiler_error(who ~ ": give exactly one of relation: 'schema.table' or model:"
        ~ " <model or seed name>, got " ~ ('both' if relation is not none else 'neither')) }}
  {%- endif -%}
  {%- if model is not none and (model is not string or model | trim == '') -%}
    {{ exceptions.raise_compiler_error(who ~ ": model must be the name of a model, seed or snapshot, got "
        ~ kanon._describe_value(model)) }}
  {%- endif -%}
  {%- set is_relation = relation is mapping
      and (relation.get('metadata', {}).get('type', '') | string).endswith('Relation') -%}
  {%- if relation is not none and not is_relation and (relation is not string or relation | trim == '') -%}
    {{ exceptions.raise_compiler_error(who ~ ": relation must be 'schema.table' or a relation such as ref('people'),"
        ~ " got " ~ kanon._describe_value(relation)) }}
  {%- endif -%}
  {%- do kanon._cli_read_only() -%}
  {%- set source = kanon._inspect_records_relation(relation, model, who) -%}
  {%- set columns = adapter.get_columns_in_relation(source) -%}
  {%- if columns | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ source ~ " has no columns to inspect") }}
  {%- endif -%}

  {#- What kind of values a column holds, from its type. Types without equality (Postgres json,
      xml, geometric) are counted as text. -#}
  {%- set kinds = [] -%}
  {%- for column in columns -%}
    {%- set type = column.dtype | lower -%}
    {%- if 'date' in type or 'timestamp' in type or type.startswith('time') -%}
      {%- do kinds.append('date') -%}
    {%- elif column.is_string() or type.startswith('varchar') or type in ['string', 'citext', 'name', 'bpchar'] -%}
      {%- do kinds.append('text') -%}
    {%- elif kanon._column_is_number(column) -%}
      {%- do kinds.append('number') -%}
    {%- elif 'bool' in type -%}
      {%- do kinds.append('boolean') -%}
    {%- else -%}
      {%- do kinds.append('other') -%}
    {%- endif -%}
  {%- endfor -%}

  {%- set compared_as_text = ['json', 'xml', 'point', 'line', 'lseg', 'box', 'path', 'polygon', 'circle'] -%}
  {%- set sql -%}
    select
      count(*) as _k_rows
      {%- for column in columns %}
      {%- set quoted = kanon._quote(column.name) -%}
      {%- set comparable = quoted if (column.dtype | lower) not in compared_as_text
            else 'cast(' ~ quoted ~ ' as ' ~ dbt.type_string() ~ ')' %},
      count({{ quoted }}) as _k_non_null_{{ loop.index }},
      count(distinct {{ comparable }}) as _k_distinct_{{ loop.index }}
      {%- if kinds[loop.index0] == 'text' %},
      avg(length({{ quoted }})) as _k_length_{{ loop.index }}
      {%- endif %}
      {%- endfor %}
    from {{ source }}
  {%- endset -%}
  {%- set measured = run_query(sql).rows[0] -%}

  {#- agate hands numbers back as Decimal, which JSON cannot carry: ints, and floats for shares. -#}
  {%- set rows = measured['_k_rows'] | int -%}
  {%- set out = [] -%}
  {%- for column in columns -%}
    {%- set i = loop.index -%}
    {%- set non_null = measured['_k_non_null_' ~ i] | int -%}
    {%- set distinct = measured['_k_distinct_' ~ i] | int -%}
    {%- set length = measured['_k_length_' ~ i] if kinds[loop.index0] == 'text' else none -%}
    {%- set avg_length = none if length is none else (length | float) -%}
    {%- set suggestion = kanon._inspect_records_role(column.name, kinds[loop.index0], rows, non_null, distinct,
                                                     avg_length) -%}
    {%- do out.append({
        'name': column.name,
        'type': column.dtype,
        'rows': rows,
        'non_null': non_null,
        'nulls': rows - non_null,
        'null_share': ((rows - non_null) / rows) | round(4) if rows > 0 else none,
        'distinct': distinct,
        'uniqueness': (distinct / non_null) | round(4) if non_null > 0 else none,
        'avg_length': none if avg_length is none else avg_length | round(1),
        'role': suggestion.role,
        'reason': suggestion.reason,
    }) -%}
  {%- endfor -%}

  {#- The table, for whoever runs it by hand. -#}
  {%- set widths = {'name': 6, 'type': 4} -%}
  {%- for c in out -%}
    {%- do widths.update({'name': [widths.name, c.name | length] | max,
                          'type': [widths.type, c.type | length] | max}) -%}
  {%- endfor -%}
  {%- set line = '%-' ~ widths.name ~ 's  %-' ~ widths.type ~ 's  %9s  %9s  %6s  %10s  %-16s  %s' -%}
  {{ log("kanon: " ~ source ~ ": " ~ rows ~ " rows, " ~ out | length
         ~ " columns (aggregates only; suggested roles, not decisions)", info=true) }}
  {{ log(line | format('column', 'type', 'non-null', 'distinct', 'nulls', 'uniqueness', 'suggested role', 'why'),
         info=true) }}
  {%- for c in out %}
  {{ log(line | format(c.name, c.type, c.non_null, c.distinct,
      '' if c.null_share is none else ('%.0f%%' | format(100 * c.null_share)),
      '' if c.uniqueness is none else ('%.3f' | format(c.uniqueness)), c.role, c.reason), info=true) }}
  {%- endfor %}
  {%- set counts = [] -%}
  {%- for role in ['identifier', 'quasi_identifier', 'keep'] -%}
    {%- do counts.append((out | selectattr('role', 'equalto', role) | list | length) ~ ' ' ~ role) -%}
  {%- endfor %}
  {{ log("kanon: suggested " ~ counts | join(', ') ~ ". Decide each role yourself: a column that is what the extract"
         ~ " is about (a diagnosis) is sensitive, whatever its cardinality.", info=true) }}
  {%- set rules = kanon._inspect_records_rules() -%}
  {%- do kanon._cli_emit({
      'relation': source | string,
      'rows': rows,
      'columns': out,
      'thresholds': rules,
  }) -%}
{% endmacro %}
