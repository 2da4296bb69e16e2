{#-
  A release's time delay (release_counts' `delay`): only events at least `days` old are counted,
  the usual defence against someone timing an action to be seen in the next release (a reader
  who knows a person borrowed a title this morning cannot find that loan in tonight's counts).

    delay={'column': 'loaned_at', 'days': 2}                      older than 2 days at release time
    delay={'column': 'loaned_at', 'days': 2, 'as_of': '2026-12-01'}  ... than 2 days before as_of

  `column` is the events' time (a date or timestamp, or text the warehouse casts to one); an
  event whose time is NULL is not counted (its age is unknown). `days` is a whole number from 0.
  `as_of` (a date or timestamp as text, for example from a var) fixes the reference time, so that
  a rerun releases the same events; without it the warehouse's clock at release time is used, and
  two runs of one release can count different events. Returns none without a delay, else
  {'column', 'days', 'as_of', 'cutoff'} with the column resolved and the cutoff as SQL.
-#}
{% macro _counts_delay(delay, columns, relation, who) %}
  {%- if delay is none -%}{{ return(none) }}{%- endif -%}
  {%- if delay is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": delay must be a mapping such as {'column': 'loaned_at', 'days': 2},"
        ~ " got " ~ kanon._describe_value(delay)) }}
  {%- endif -%}
  {%- for key in delay if key not in ['column', 'days', 'as_of'] -%}
    {{ exceptions.raise_compiler_error(who ~ ": delay takes column, days and as_of, not '" ~ key ~ "'") }}
  {%- endfor -%}
  {%- if delay.get('column') is not string or delay.get('column') | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": delay's column must name the events' time column, got "
        ~ kanon._describe_value(delay.get('column'))) }}
  {%- endif -%}
  {%- set days = kanon._check_whole_number(delay.get('days'), "delay's days", who, 0) -%}
  {%- set as_of = delay.get('as_of') -%}
  {%- set date_or_timestamp = '[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,6})?)?)?' -%}
  {%- if as_of is not none and (as_of is not string or not modules.re.fullmatch(date_or_timestamp, as_of)) -%}
    {{ exceptions.raise_compiler_error(who ~ ": delay's as_of must be a date or timestamp as text (2026-12-01 or"
        ~ " 2026-12-01 06:00:00), got " ~ kanon._describe_value(as_of)) }}
  {%- endif -%}
  {%- set column = kanon._resolve_column(delay.column, columns, "delay's", relation, who) -%}
  {#- With as_of the cutoff is a literal computed here, the same instant on every warehouse;
      without it, the warehouse's clock less the days. -#}
  {%- if as_of is not none -%}
    {%- set instant = modules.datetime.datetime.fromisoformat(as_of | replace('T', ' '))
        - modules.datetime.timedelta(days=days) -%}
    {%- set cutoff = "cast('" ~ instant.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "' as " ~ dbt.type_timestamp() ~ ")" -%}
  {%- else -%}
    {%- set cutoff = dbt.dateadd('day', -1 * days, dbt.current_timestamp()) | trim -%}
  {%- endif -%}
  {{ return({'column': column, 'days': days, 'as_of': as_of, 'cutoff': cutoff}) }}
{% endmacro %}

{#- The condition an event must meet to be counted, on the events relation aliased `alias`:
    its time no later than the delay's cutoff ('1 = 1' without a delay). -#}
{% macro _counts_delay_condition(plan, alias) %}
  {%- if plan.delay is none -%}{{ return('1 = 1') }}{%- endif -%}
  {{ return('cast(' ~ alias ~ '.' ~ kanon._quote(plan.delay.column) ~ ' as ' ~ dbt.type_timestamp() ~ ') <= '
      ~ plan.delay.cutoff) }}
{% endmacro %}
