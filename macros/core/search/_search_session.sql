{#-
  What the record search (kanon.release_records) and the table search (kanon.release_table) both
  do around their rounds, once: name their scratch tables (_scratch_table), apply the settings
  they plan their queries with, drop what they leave, read one value of a query, and time
  themselves. Each search keeps its own tables and settings; only the way they are set up is
  shared.

    _search_session(bases, settings='', parallel=false)
                          {started: now, tables: {key: the scratch table `bases[key]` ~ the
                          model's suffix}}, after running `settings` (SQL; '' for none);
                          parallel: tables the warehouse may scan in parallel (_scratch_name)
    _search_drop(names)   `drop table if exists` each of `names`, once each, in their order
    _search_replace(name, sql, in_stages=false)
                          the scratch table `name` dropped and created again as `sql`
    _search_value(sql)    the first column of the first row of `sql`
    _search_now()         the time now, for a timer of a phase
    _search_seconds(since, until=none)
                          the seconds from `since` to `until` (now when none), to the millisecond
-#}
{% macro _search_session(bases, settings='', parallel=false) %}
  {%- set started = kanon._search_now() -%}
  {%- set suffix = kanon._scratch_suffix() -%}
  {%- set tables = {} -%}
  {%- for key, base in bases.items() -%}
    {%- do tables.update({key: kanon._scratch_name(base ~ suffix, parallel)}) -%}
  {%- endfor -%}
  {%- if settings -%}{%- do run_query(settings) -%}{%- endif -%}
  {{ return({'started': started, 'tables': tables}) }}
{% endmacro %}

{% macro _search_drop(names) %}
  {%- for name in names | unique -%}
    {%- do run_query('drop table if exists ' ~ name) -%}
  {%- endfor -%}
{% endmacro %}

{% macro _search_replace(name, sql, in_stages=false) %}
  {%- do run_query('drop table if exists ' ~ name) -%}
  {%- do kanon._scratch_create(name, sql, in_stages) -%}
{% endmacro %}

{% macro _search_value(sql) %}
  {{ return(run_query(sql).rows[0][0]) }}
{% endmacro %}

{% macro _search_now() %}
  {{ return(modules.datetime.datetime.now()) }}
{% endmacro %}

{% macro _search_seconds(since, until=none) %}
  {{ return(((until or kanon._search_now()) - since).total_seconds() | round(3)) }}
{% endmacro %}
