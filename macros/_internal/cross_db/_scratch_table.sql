{#-
  Scratch tables: the working tables of the record search and the table search (the lattice, the
  evaluated nodes, the cells and their picks), private to the session where the warehouse has
  temporary tables, updated in place as a search goes.

  Spark has neither: no temporary tables (a temporary view is a query, re-run wherever it is read)
  and no UPDATE or DELETE on Parquet tables. There a scratch table is a Parquet table in the
  private audit schema (where a release's stages are, _spark_stages), and an update or a delete
  rewrites it: the new rows into a sibling table, then `insert overwrite` back
  (_spark_scratch_through_sibling). The searches are
  written once against these macros.

    _scratch_name(base, parallel=false)
                                   the name to write in SQL for the scratch table `base`;
                                   parallel: one the warehouse may scan with parallel workers
                                   (Postgres scans a temporary table in one process: there an
                                   unlogged table in the private audit schema, made private as
                                   it is created; elsewhere the same as without)
    _scratch_create(name, sql, in_stages=false)
                                   the table `name` as the rows of `sql`; in_stages: on Spark one
                                   statement per CTE of `sql` (its plan would be too large whole)
    _scratch_insert(name, sql, in_stages=false)
                                   the rows of `sql` added to the table `name`
    _scratch_query(sql)            run_query(sql); on Spark its CTEs in stages first (a check's
                                   query over a release's cells)
    _scratch_update(name, sets, where)
                                   set column = expression (sets: {column: SQL}) on the rows
                                   meeting `where`, as UPDATE does
    _scratch_delete(name, where)   the rows meeting `where` removed, as DELETE does
    _scratch_analyze(name)         its statistics, where the warehouse plans from statistics it
                                   does not gather by itself (_analyze_temporary: Postgres)

    _scratch_suffix()              what a model's scratch names end with: the same in every run of
                                   the model, so that on Spark a crashed search's tables are
                                   replaced by the next run's, and a release drops what its
                                   searches left (spark___drop_staging)

  Dropping is `drop table if exists <name>` everywhere. Each macro runs its statements itself.
-#}
{% macro _scratch_suffix() %}
  {{ return(local_md5(model.unique_id)[:10]) }}
{% endmacro %}

{% macro _scratch_name(base, parallel=false) %}
  {%- if parallel -%}
    {{ return(adapter.dispatch('_parallel_scratch_name', 'kanon')(base)) }}
  {%- endif -%}
  {{ return(adapter.dispatch('_scratch_name', 'kanon')(base)) }}
{% endmacro %}

{% macro default___parallel_scratch_name(base) %}
  {{ return(kanon._scratch_name(base)) }}
{% endmacro %}

{#- Postgres: in the private audit schema, where nothing else the project builds may be
    (_audit_trail_check_apart, checked here too: the release checks it only after the search). -#}
{% macro postgres___parallel_scratch_name(base) %}
  {%- set trail = kanon._audit_relation(kanon._audit_tables()[0][0]) -%}
  {%- do kanon._audit_trail_check_apart([trail], this, 'release ' ~ model.unique_id) -%}
  {{ return(kanon._quote(trail.schema) ~ '.' ~ base) }}
{% endmacro %}

{% macro default___scratch_name(base) %}
  {{ return(base) }}
{% endmacro %}

{#- Spark: a table in the private audit schema (a temporary view would re-run its query at every
    read). `base` is kanon's own name (letters, digits, underscores) and left unquoted, so that a
    search may append to it (a prefix of numbered tables). -#}
{% macro spark___scratch_name(base) %}
  {{ return(kanon._quote(kanon._spark_stage_scratch().schema) ~ '.' ~ base) }}
{% endmacro %}


{% macro _scratch_create(name, sql, in_stages=false) %}
  {%- do adapter.dispatch('_scratch_create', 'kanon')(name, sql, in_stages) -%}
{% endmacro %}

{% macro default___scratch_create(name, sql, in_stages) %}
  {%- do run_query('create temporary table ' ~ name ~ ' as ' ~ sql) -%}
{% endmacro %}

{#- Postgres: a name in a schema (parallel, above) is an unlogged table there (_postgres_scratch_create_sql). -#}
{% macro postgres___scratch_create(name, sql, in_stages) %}
  {%- if '.' in name -%}
    {%- do run_query(kanon._postgres_scratch_create_sql(name, sql)) -%}
  {%- else -%}
    {%- do kanon.default___scratch_create(name, sql, in_stages) -%}
  {%- endif -%}
{% endmacro %}

{#- Postgres: the statements creating the unlogged table `name` (in a schema) as the rows of `sql`,
    sent as one: its schema when missing (before the trail's first write), a table a crashed search
    left dropped, and then every privilege the table holds beyond its owner's revoked, in one
    REVOKE: `alter default privileges` hand a new table to the host's roles (the trail's own
    readers included), and none may read what the search keeps (level-0 classes, below k). Unlogged:
    never written to the write-ahead log, and gone after a crash of the server. No parallel scan of
    the table itself (parallel_workers 0): a search's query runs in parallel as parts, each whole in
    one process (_records_evaluate_parts), which a Gather over a split scan inside a part would stop. -#}
{% macro _postgres_scratch_create_sql(name, sql) %}
  {%- set literal = "'" ~ (name | replace("'", "''")) ~ "'" -%}
  {%- set statements -%}
    create schema if not exists {{ name.rsplit('.', 1)[0] }};
    drop table if exists {{ name }};
    create unlogged table {{ name }} with (parallel_workers = 0) as {{ sql }};
    do $kanon$ declare grantees text; begin
      select string_agg(distinct case when a.grantee = 0 then 'public'
                                      else quote_ident(pg_get_userbyid(a.grantee)) end, ', ')
        into grantees
        from pg_catalog.pg_class as c cross join lateral aclexplode(c.relacl) as a
        where c.oid = {{ literal }}::regclass and a.grantee <> c.relowner;
      if grantees is not null then
        execute format('revoke all on table %s from %s cascade', {{ literal }}::regclass, grantees);
      end if;
    end $kanon$
  {%- endset -%}
  {{ return(statements) }}
{% endmacro %}

{#- Spark: the audit schema may not exist yet when a search runs (it compiles before the trail's
    first write); a table left by a crashed search of the same name is replaced. In stages, each
    CTE of the query read more than once is a statement writing a table, one read once a
    temporary view (_spark_stages: as one statement the table search's cube engine ran Spark's
    analyzer out of memory on nine cells), dropped once the table is written. -#}
{% macro spark___scratch_create(name, sql, in_stages) %}
  {%- set scratch = kanon._spark_stage_scratch() -%}
  {%- do run_query('create schema if not exists ' ~ kanon._quote(scratch.schema)) -%}
  {%- set split = kanon._spark_stages(sql, name.split('.')[-1] ~ '__', scratch)
      if in_stages else {'stages': [], 'select': sql} -%}
  {%- for stage in split.stages -%}
    {%- do run_query(stage) -%}
  {%- endfor -%}
  {%- do run_query('drop table if exists ' ~ name) -%}
  {%- do run_query('create table ' ~ name ~ ' using parquet as ' ~ split.select) -%}
  {%- for drop in split.drops | reverse -%}
    {%- do run_query(drop) -%}
  {%- endfor -%}
{% endmacro %}


{% macro _scratch_insert(name, sql, in_stages=false) %}
  {%- do adapter.dispatch('_scratch_insert', 'kanon')(name, sql, in_stages) -%}
{% endmacro %}

{% macro default___scratch_insert(name, sql, in_stages) %}
  {%- do run_query('insert into ' ~ name ~ ' ' ~ sql) -%}
{% endmacro %}

{#- Postgres, a table in a schema: through a sibling created as the rows (CREATE TABLE AS plans
    with parallel workers, INSERT ... SELECT never does), all in one statement. -#}
{% macro postgres___scratch_insert(name, sql, in_stages) %}
  {%- if '.' in name -%}
    {%- set sibling = name.rsplit('.', 1)[0] ~ '._kanon_next_' ~ name.split('.')[-1] -%}
    {%- do run_query(kanon._postgres_scratch_create_sql(sibling, sql)
        ~ '; insert into ' ~ name ~ ' select * from ' ~ sibling ~ '; drop table ' ~ sibling) -%}
  {%- else -%}
    {%- do kanon.default___scratch_insert(name, sql, in_stages) -%}
  {%- endif -%}
{% endmacro %}

{#- Spark, in stages: through a sibling table created in stages. -#}
{% macro spark___scratch_insert(name, sql, in_stages) %}
  {%- if in_stages -%}
    {%- do kanon._spark_scratch_through_sibling(name, sql, 'insert into', true) -%}
  {%- else -%}
    {%- do run_query('insert into ' ~ name ~ ' ' ~ sql) -%}
  {%- endif -%}
{% endmacro %}


{% macro _scratch_query(sql) %}
  {{ return(adapter.dispatch('_scratch_query', 'kanon')(sql)) }}
{% endmacro %}

{% macro default___scratch_query(sql) %}
  {{ return(run_query(sql)) }}
{% endmacro %}

{#- Spark: the rows into a scratch table, in stages, then read. -#}
{% macro spark___scratch_query(sql) %}
  {%- set name = kanon._scratch_name('_kanon_q_' ~ kanon._scratch_suffix()) -%}
  {%- do kanon._scratch_create(name, sql, true) -%}
  {%- set result = run_query('select * from ' ~ name) -%}
  {%- do run_query('drop table if exists ' ~ name) -%}
  {{ return(result) }}
{% endmacro %}


{% macro _scratch_update(name, sets, where) %}
  {%- do adapter.dispatch('_scratch_update', 'kanon')(name, sets, where) -%}
{% endmacro %}

{% macro default___scratch_update(name, sets, where) %}
  {%- set assignments = [] -%}
  {%- for column, expression in sets.items() -%}{%- do assignments.append(column ~ ' = ' ~ expression) -%}{%- endfor -%}
  {%- do run_query('update ' ~ name ~ ' set ' ~ (assignments | join(', ')) ~ ' where ' ~ where) -%}
{% endmacro %}

{#- Spark: the rows that change, with the new values, and those that do not (where the condition
    is false or NULL, as UPDATE leaves them), as they are; the condition stays in WHERE clauses,
    where Spark takes correlated subqueries. -#}
{% macro spark___scratch_update(name, sets, where) %}
  {%- set columns = [] -%}
  {%- for column in run_query('select * from ' ~ name ~ ' limit 0').column_names -%}
    {%- do columns.append(sets.get(column | lower, column) ~ ' as ' ~ column) -%}
  {%- endfor -%}
  {%- do kanon._spark_scratch_through_sibling(name,
      'select ' ~ (columns | join(', ')) ~ ' from ' ~ name ~ ' where ' ~ where
      ~ ' union all select * from ' ~ name ~ ' where (' ~ where ~ ') is not true', 'insert overwrite table') -%}
{% endmacro %}


{% macro _scratch_delete(name, where) %}
  {%- do adapter.dispatch('_scratch_delete', 'kanon')(name, where) -%}
{% endmacro %}

{% macro default___scratch_delete(name, where) %}
  {%- do run_query('delete from ' ~ name ~ ' where ' ~ where) -%}
{% endmacro %}

{% macro spark___scratch_delete(name, where) %}
  {%- do kanon._spark_scratch_through_sibling(name, 'select * from ' ~ name ~ ' where (' ~ where ~ ') is not true',
      'insert overwrite table') -%}
{% endmacro %}

{#- The rows of `sql` written to a sibling of the scratch table `name`, then `verb` (insert into,
    or insert overwrite table: Spark does not overwrite a table the query reads) `name` from it.
    The sibling's name ends as `name` does, with the model's suffix, so that a crash leaves
    nothing the release's clean-up does not find. -#}
{% macro _spark_scratch_through_sibling(name, sql, verb, in_stages=false) %}
  {%- set sibling = kanon._scratch_name('_kanon_next_' ~ name.split('.')[-1]) -%}
  {%- do kanon._scratch_create(sibling, sql, in_stages) -%}
  {%- do run_query(verb ~ ' ' ~ name ~ ' select * from ' ~ sibling) -%}
  {%- do run_query('drop table if exists ' ~ sibling) -%}
{% endmacro %}


{% macro _scratch_analyze(name) %}
  {%- set sql = kanon._analyze_temporary(name) -%}
  {%- if sql -%}{%- do run_query(sql) -%}{%- endif -%}
{% endmacro %}
