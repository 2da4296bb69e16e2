{#-
    kanon.privacy_unit_clean (column-level, on the privacy-unit column of an EVENTS relation)

    kanon counts people as distinct values of the privacy unit: 'p1', 'P1' and 'p1 ' would count
    as three people where there is one, inflating every count they share a cell with. The test
    fails when distinct non-null ids become equal once normalized (see privacy_unit_normalized:
    whitespace trimmed at both ends, then lower-cased).

    It never returns an id. Failing output is one row, only when ids collide:
      n_colliding_ids  normalized ids that have more than one raw spelling
      n_spellings      raw spellings involved (e.g. 'p1', 'P1', 'p1 ' -> 1 and 3)
    NULL ids are skipped (they are no one's spelling); blank ids ('' and '  ') do collide.
-#}
{% test privacy_unit_clean(model, column_name=none) %}
    {%- set who = kanon._who('kanon.privacy_unit_clean') -%}
    {%- if column_name is none -%}
        {%- do exceptions.raise_compiler_error(
            who ~ ": argument `column_name` is missing: list the test under the privacy-unit column of the "
            ~ "events relation (columns: - name: <column> data_tests: - kanon.privacy_unit_clean)"
        ) -%}
    {%- endif -%}
    {%- if column_name is not string or column_name | trim == '' -%}
        {%- do exceptions.raise_compiler_error(
            who ~ ": argument `column_name` must be the name of one column, got "
            ~ (("'" ~ column_name ~ "'") if column_name is string else (column_name | string))
        ) -%}
    {%- endif -%}
    {{ return(adapter.dispatch('test_privacy_unit_clean', 'kanon')(model, column_name)) }}
{% endtest %}

{% macro default__test_privacy_unit_clean(model, column_name) %}

with spellings as (
    select distinct cast({{ column_name }} as {{ dbt.type_string() }}) as spelling
    from {{ model }}
    where {{ column_name }} is not null
),

colliding_ids as (
    select count(*) as n_spellings
    from spellings
    group by {{ kanon.privacy_unit_normalized('spelling') }}
    having count(*) > 1
)

select
    count(*) as n_colliding_ids,
    cast(sum(n_spellings) as {{ dbt.type_bigint() }}) as n_spellings
from colliding_ids
having count(*) > 0
{% endmacro %}

{#-
    kanon.privacy_unit_normalized(expression): SQL text of the normalized form of a string-typed
    expression, as kanon.privacy_unit_clean compares ids: whitespace trimmed at both ends, then
    lower(). Use it to clean the ids upstream. The portable default trims spaces only (standard
    SQL trim); on DuckDB and Postgres tab, line feed, vertical tab, form feed and carriage return
    are trimmed too (through chr()). Not trimmed: Unicode spaces such as U+00A0 or U+3000.
-#}
{% macro privacy_unit_normalized(expression) %}
    {{- return(adapter.dispatch('privacy_unit_normalized', 'kanon')(expression)) -}}
{% endmacro %}

{% macro default__privacy_unit_normalized(expression) -%}
    lower(trim({{ expression }}))
{%- endmacro %}

{% macro _privacy_unit_normalized_with_chr(expression) -%}
    lower(trim(both chr(9) || chr(10) || chr(11) || chr(12) || chr(13) || chr(32) from {{ expression }}))
{%- endmacro %}

{% macro postgres__privacy_unit_normalized(expression) -%}
    {{- kanon._privacy_unit_normalized_with_chr(expression) -}}
{%- endmacro %}

{% macro duckdb__privacy_unit_normalized(expression) -%}
    {{- kanon._privacy_unit_normalized_with_chr(expression) -}}
{%- endmacro %}
