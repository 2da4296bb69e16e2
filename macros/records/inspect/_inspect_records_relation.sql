{#- The relation kanon.kanon_inspect_records reads, which must be in the warehouse:
      model     the one enabled model, seed or snapshot of that name in the graph (any package),
                where the project's configs put it
      relation  a relation (ref, source, api.Relation), or its name as text: 'table',
                'schema.table' or 'database.schema.table' (no schema: the target's). A part is
                matched as spelled, else as the one name equal up to letter case, as the
                warehouse resolves names: on Postgres a part in double quotes only as spelled.
    Raises, in one line, naming what it looked for. -#}
{% macro _inspect_records_relation(relation, model, who) %}
  {%- if model is not none -%}
    {%- set found = [] -%}
    {%- for node in graph.nodes.values()
          if node.resource_type in ['model', 'seed', 'snapshot'] and node.name == model -%}
      {%- do found.append(node) -%}
    {%- endfor -%}
    {%- if found | length == 0 -%}
      {{ exceptions.raise_compiler_error(who ~ ": no model, seed or snapshot named '" ~ model
          ~ "' in this project or its packages (enabled ones only);"
          ~ " give relation: 'schema.table' for any other table") }}
    {%- elif found | length > 1 -%}
      {{ exceptions.raise_compiler_error(who ~ ": several nodes named '" ~ model ~ "': "
          ~ (found | map(attribute='unique_id') | sort | join(', ')) ~ "; give relation: 'schema.table' instead") }}
    {%- endif -%}
    {%- set node = found[0] -%}
    {%- if node.config.materialized == 'ephemeral' -%}
      {{ exceptions.raise_compiler_error(who ~ ": " ~ node.unique_id
          ~ " is ephemeral: it has no relation to inspect") }}
    {%- endif -%}
    {%- set identifier = node.alias or node.name -%}
    {%- set found_relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=identifier) -%}
    {%- if found_relation is none -%}
      {{ exceptions.raise_compiler_error(who ~ ": cannot read "
          ~ api.Relation.create(database=node.database, schema=node.schema, identifier=identifier)
          ~ ": it is not in the warehouse (build " ~ node.unique_id ~ " with this target first)") }}
    {%- endif -%}
    {{ return(found_relation) }}
  {%- endif -%}
  {%- if relation is mapping and (relation.get('metadata', {}).get('type', '') | string).endswith('Relation') -%}
    {%- set parts = [(relation.database, true), (relation.schema, true), (relation.identifier, true)] -%}
  {%- else -%}
    {%- set text = relation | trim -%}
    {%- set part = '(?:"(?:[^"]|"")+"|[^."\\s]+)' -%}
    {%- if not modules.re.fullmatch(part ~ '(?:\\.' ~ part ~ '){0,2}', text) -%}
      {{ exceptions.raise_compiler_error(who ~ ": relation must be a table's name, 'schema.table' or"
          ~ " 'database.schema.table' (double-quote a part with dots or spaces), got "
          ~ kanon._describe_value(relation)) }}
    {%- endif -%}
    {%- set parts = [] -%}
    {%- for quoted, plain in modules.re.findall('"((?:[^"]|"")+)"|([^."\\s]+)', text) -%}
      {%- do parts.append((quoted | replace('""', '"'), true) if quoted else (plain, false)) -%}
    {%- endfor -%}
    {%- if parts | length < 3 -%}
      {%- set parts = ([(target.database, true), (target.schema, true)][:3 - parts | length]) + parts -%}
    {%- endif -%}
  {%- endif -%}
  {%- set shown = api.Relation.create(database=parts[0][0], schema=parts[1][0], identifier=parts[2][0]) -%}
  {#- The catalog, case-insensitively (an approximate match would make adapter.get_relation raise). -#}
  {%- set sql -%}
    select table_catalog, table_schema, table_name, table_type
    from information_schema.tables
    where lower(table_schema) = lower('{{ parts[1][0] | replace("'", "''") }}')
      and lower(table_name) = lower('{{ parts[2][0] | replace("'", "''") }}')
      {%- if parts[0][0] %}
      and lower(table_catalog) = lower('{{ parts[0][0] | replace("'", "''") }}')
      {%- endif %}
  {%- endset -%}
  {%- set candidates = run_query(sql).rows -%}
  {#- DuckDB resolves quoted names case-insensitively too, Postgres exactly. -#}
  {%- set exact_quotes = target.type == 'postgres' -%}
  {%- set ns = namespace(exact=none, loose=[]) -%}
  {%- for row in candidates -%}
    {%- set same = [] -%}
    {%- for value, (given, quoted) in [(row[0], parts[0]), (row[1], parts[1]), (row[2], parts[2])] -%}
      {%- do same.append('exact' if given is none or value == given
                         else ('loose' if not (quoted and exact_quotes) else 'no')) -%}
    {%- endfor -%}
    {%- if 'no' not in same and 'loose' not in same -%}
      {%- set ns.exact = row -%}
    {%- elif 'no' not in same -%}
      {%- do ns.loose.append(row) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.exact is none and ns.loose | length > 1 -%}
    {%- set names = [] -%}
    {%- for row in ns.loose -%}
      {%- do names.append(api.Relation.create(database=row[0], schema=row[1], identifier=row[2]) | string) -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ shown
        ~ " is ambiguous: several relations match it up to letter case (" ~ (names | sort | join(', '))
        ~ "); double-quote the parts to name one exactly") }}
  {%- endif -%}
  {%- set row = ns.exact if ns.exact is not none else (ns.loose[0] if ns.loose else none) -%}
  {%- if row is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": no relation " ~ shown ~ " in the warehouse"
        ~ " (give relation: 'schema.table' of an existing table or view, or model: <name> of a built model or seed)") }}
  {%- endif -%}
  {{ return(api.Relation.create(database=row[0], schema=row[1], identifier=row[2],
      type=('view' if 'VIEW' in (row[3] | upper) else 'table'))) }}
{% endmacro %}
