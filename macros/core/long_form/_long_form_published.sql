{#-
  What a release model's SQL returns when anything but the k_anonymous materialization runs it:
  `dbt show` and the Preview buttons built on it, a compiled file in target/ run by hand, an
  analysis or a BI tool's "view SQL". A release macro hands the materialization its long form
  (the published rows, the suppressed groups with their people, the facts), which must never
  reach a terminal or a log. So the model's SQL is the long form wrapped in the materialization's
  own publishing step: the 'release' rows, the published columns, in the published order. Run
  as it is, it returns at most what the mart would publish; the materialization takes the long
  form back out from between the two markers (_long_form_unwrap) and stages it as before.

  What it cannot know is the gate's verdict (a check on the whole release, such as the
  suppression budget, may still refuse it): a preview shows the rows a release would publish if
  its gate passed, each of them at least k people, never a row the gate would not publish.
-#}
{% macro _long_form_published(long_form, columns, order_by=none) -%}
select {{ kanon._quote_list(columns) }}
from (
{{ kanon._long_form_markers()[0] }}
{{ long_form }}
{{ kanon._long_form_markers()[1] }}
) as _kanon_long_form
where {{ kanon._long_form_is('release') }}
{%- if order_by %}
order by {{ order_by }}
{%- endif %}
{%- endmacro %}

{#- The comments that enclose the long form in a release model's SQL. -#}
{% macro _long_form_markers() %}
  {{ return(['/* kanon:long_form:begin */', '/* kanon:long_form:end */']) }}
{% endmacro %}

{#- The long form inside a release model's SQL (_long_form_published), for the materialization
    to stage. The SQL must be the wrapper exactly as the release macro wrote it: a model that
    wraps a release macro in its own SQL would have the materialization publish something other
    than what its SQL says, so it is refused. -#}
{% macro _long_form_unwrap(sql, kind) %}
  {%- set begin, end = kanon._long_form_markers() -%}
  {%- set first = sql.find(begin) -%}
  {%- set last = sql.rfind(end) -%}
  {%- set head = sql[:first] if first >= 0 else '' -%}
  {%- set tail = sql[last + end | length:] if last >= 0 else '' -%}
  {#- the head is `select <quoted names> from (`: names quoted as _quote quotes them, any text inside -#}
  {%- set name = '(?:"(?:[^"]|"")*"|`(?:[^`]|``)*`)' -%}
  {#- white space and SQL comments, which may stand before the call and after it -#}
  {%- set blank = '(?:\\s|--[^\\n]*(?:\\n|$)|/\\*(?:[^*]|\\*(?!/))*\\*/)*' -%}
  {%- set head_pattern = blank ~ 'select ' ~ name ~ '(?:, ' ~ name ~ ')*\\s+from \\(\\s*' -%}
  {%- set tail_pattern = "\\s*\\) as _kanon_long_form\\s+where _kanon_row = 'release'(\\s+order by [a-z_]+)?"
      ~ blank -%}
  {%- set head_ok = modules.re.fullmatch(head_pattern, head) is not none -%}
  {%- set tail_ok = modules.re.fullmatch(tail_pattern, tail) is not none -%}
  {%- if first < 0 or last <= first -%}
    {{ exceptions.raise_compiler_error("kanon: " ~ model.unique_id ~ " is configured as a '" ~ kind.name
        ~ "' release but its SQL does not carry the long form of " ~ kind.called ~ ". Nothing was published.") }}
  {%- endif -%}
  {%- if not head_ok or not tail_ok -%}
    {{ exceptions.raise_compiler_error("kanon: " ~ model.unique_id ~ ": the SQL of a model that calls " ~ kind.called
        ~ " must be that call alone (it returns the release's published rows, and the k_anonymous materialization"
        ~ " publishes them through its gate); select from the released mart in another model instead."
        ~ " Nothing was published.") }}
  {%- endif -%}
  {{ return(sql[first + begin | length:last]) }}
{% endmacro %}

{#- What the materialization stages for the model's release kind (config kanon_release_kind, set
    at parse time): a release macro's long form, unwrapped; a hand-written model's SQL as it is. -#}
{% macro _release_staged_sql(sql) %}
  {%- set name = config.get('kanon_release_kind') or 'hand_written' -%}
  {%- set kind = dict(kanon._release_kind_descriptor(name), name=name) -%}
  {{ return(kanon._long_form_unwrap(sql, kind) if kind.long_form else sql) }}
{% endmacro %}
