{#-
  Spark inlines every CTE wherever it is read, and expands every view wherever it is read. The
  long form reads the engine's CTEs many times over, so as one statement its plan grew past what
  Spark's analyzer and optimizer can hold (a nine-row release ran out of driver memory after
  466 s). Excluding the InlineCTE optimizer rule hit internal errors of Spark's CTE planning
  ("Could not find _k_d1_label2", pyspark 4.3); cached temporary views still ran out of memory at
  the eighth ladder step, since a view is expanded into the whole plan under it before the cache
  is found. So on Spark a statement is split where kanon wrote it: each CTE of its top-level
  WITH becomes a statement of its own. A CTE the engine asked to materialize, or one read more
  than once that it did not ask to inline (_cte_materialized marks both with a comment on Spark:
  kanon:cache, kanon:inline), is written to a Parquet table in the private audit schema
  (`scratch`), where later statements read it as a table, a leaf of their plans; any other
  becomes a temporary view, expanded where it is read: one read once grows the plan no more than
  the statement's, costs Spark no job and no metastore write, and an inlined one (the count
  engine's events, read by a few CTEs) is not copied to disk whole. The final select reads them.
  (Until 2026-12 a release's staging statement made tables only of the marked CTEs: the table
  kind's final select reads its cells five times over a chain of 17 views, and its second release
  ran a 2 GB driver out of heap; as tables it takes 1.4 s.)

  Every name starts with `prefix` (the staging relation's, or a search's scratch table's) and is
  numbered in the order the statements create them, so that two releases never share one and
  _drop_staging drops them last first. A crashed release leaves its tables in the private schema
  (like the trail's suppressed groups, they may hold cells below k): the next release of the
  model drops them first.

  A CTE whose body has a WITH of its own (the table search nests its cube engine so) is split
  the same way, its CTEs becoming stages before it.

  Returns {'stages': [statement, ...], 'drops': [the statements dropping each stage, in the
  order they were created], 'select': the final select}. A statement without a
  top-level WITH has no stages. CTE names are renamed outside string literals, quoted
  identifiers and comments only, and never after a dot (a column or a qualified relation).
-#}
{% macro _spark_stages(sql, prefix, scratch) %}
  {%- set re = modules.re -%}
  {#- a literal, a quoted identifier or a comment (left as they are); a parenthesis; a name -#}
  {%- set lexeme = re.compile('(?s)(\'(?:[^\'\\\\]|\\\\.)*\'|"(?:[^"\\\\]|\\\\.)*"|`[^`]*`|--[^\\n]*|/\\*.*?\\*/)'
                               ~ '|([()])|((?<![\\w.`])[A-Za-z_]\\w*)') -%}
  {#- WITH after any whitespace and comments (a model may begin with a comment line) -#}
  {%- set opening = re.compile('(?is)(?:\\s|--[^\\n]*|/\\*.*?\\*/)*with\\s+') -%}
  {%- set header = re.compile('(?is)\\s*([A-Za-z_]\\w*)\\s+as\\s*((?:/\\*.*?\\*/\\s*)*)\\(') -%}
  {%- set separator = re.compile('\\s*,') -%}
  {%- set start = opening.match(sql) -%}
  {%- if not start -%}
    {{ return({'stages': [], 'drops': [], 'select': sql}) }}
  {%- endif -%}
  {#- the top-level parenthesized groups: {opening position: closing position} -#}
  {%- set groups = {} -%}
  {%- set ns = namespace(depth=0, open=none, at=start.end(), done=false) -%}
  {%- for m in lexeme.finditer(sql) if m.group(2) -%}
    {%- if m.group(2) == '(' -%}
      {%- if ns.depth == 0 -%}{%- set ns.open = m.start() -%}{%- endif -%}
      {%- set ns.depth = ns.depth + 1 -%}
    {%- else -%}
      {%- set ns.depth = ns.depth - 1 -%}
      {%- if ns.depth == 0 -%}{%- do groups.update({ns.open: m.start()}) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set ctes = [] -%}
  {%- for _ in groups if not ns.done -%}
    {%- set m = header.match(sql, ns.at) -%}
    {%- if m and (m.end() - 1) in groups -%}
      {%- set close = groups[m.end() - 1] -%}
      {%- set mark = 'cache' if 'kanon:cache' in m.group(2) else ('inline' if 'kanon:inline' in m.group(2) else '') -%}
      {%- do ctes.append((m.group(1), mark, sql[m.end():close])) -%}
      {%- set after = separator.match(sql, close + 1) -%}
      {%- set ns.at = after.end() if after else close + 1 -%}
      {%- set ns.done = not after -%}
    {%- else -%}
      {{ exceptions.raise_compiler_error("kanon: could not split the release's WITH clause for Spark at: "
          ~ sql[ns.at:ns.at + 80]) }}
    {%- endif -%}
  {%- endfor -%}
  {#- how often each CTE is read after it: by the later CTEs and the final select (a name before
      a dot qualifies a column: not a read) -#}
  {%- set reads = {} -%}
  {%- for name, mark, body in ctes -%}{%- do reads.update({name | lower: 0}) -%}{%- endfor -%}
  {%- for name, mark, body in ctes + [('', '', sql[ns.at:])] -%}
    {%- for m in lexeme.finditer(body)
          if m.group(3) and (m.group(3) | lower) in reads and body[m.end():m.end() + 1] != '.' -%}
      {%- do reads.update({m.group(3) | lower: reads[m.group(3) | lower] + 1}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {#- what each CTE becomes, as SQL: a table in the scratch schema or a temporary view -#}
  {%- set views = {} -%}
  {%- set tables = [] -%}
  {%- for name, mark, body in ctes -%}
    {%- set numbered = kanon._quote(prefix ~ ('%03d' | format(loop.index)) ~ name) -%}
    {%- if mark == 'cache' or (mark != 'inline' and reads[name | lower] > 1) -%}
      {%- do tables.append(name | lower) -%}
      {%- do views.update({name | lower: kanon._quote(scratch.schema) ~ '.' ~ numbered}) -%}
    {%- else -%}
      {%- do views.update({name | lower: numbered}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set stages = [] -%}
  {%- set drops = [] -%}
  {%- for name, mark, body in ctes -%}
    {%- set view = views[name | lower] -%}
    {%- set body = kanon._spark_stages_rename(body, views, lexeme) -%}
    {#- a CTE whose body has a WITH of its own: its CTEs are stages too, before it -#}
    {%- if opening.match(body) -%}
      {%- set inner = kanon._spark_stages(body, prefix ~ ('%03d' | format(loop.index)) ~ name ~ '_', scratch) -%}
      {%- do stages.extend(inner.stages) -%}
      {%- do drops.extend(inner.drops) -%}
      {%- set body = inner.select -%}
    {%- endif -%}
    {%- if (name | lower) in tables -%}
      {%- do stages.append('drop table if exists ' ~ view) -%}
      {%- do stages.append('create table ' ~ view ~ ' using parquet as ' ~ body) -%}
      {%- do drops.append('drop table if exists ' ~ view) -%}
    {%- else -%}
      {%- do stages.append('create or replace temporary view ' ~ view ~ ' as ' ~ body) -%}
      {%- do drops.append('drop view if exists ' ~ view) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'stages': stages, 'drops': drops, 'select': kanon._spark_stages_rename(sql[ns.at:], views, lexeme)}) }}
{% endmacro %}

{#- `text` with every CTE name that is a name there (see _spark_stages) replaced by what it
    became: `views` maps names in lower case to SQL. -#}
{% macro _spark_stages_rename(text, views, lexeme) %}
  {%- set pieces = [] -%}
  {%- set ns = namespace(at=0) -%}
  {%- for m in lexeme.finditer(text) if m.group(3) and (m.group(3) | lower) in views -%}
    {%- do pieces.append(text[ns.at:m.start()]) -%}
    {%- do pieces.append(views[m.group(3) | lower]) -%}
    {%- set ns.at = m.end() -%}
  {%- endfor -%}
  {%- do pieces.append(text[ns.at:]) -%}
  {{ return(pieces | join('')) }}
{% endmacro %}
