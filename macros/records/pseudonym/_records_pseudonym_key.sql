{#-
  What the pseudonym macros share about the key. None of them ever sees the key: Jinja names the
  environment variable, and the warehouse reads the key where it lives (the DuckDB plugin, from
  the dbt process's environment; Postgres, from a setting given at connection start). dbt's
  env_var() is avoided on purpose: it records the value it returns in the manifest (for partial
  parsing), and the manifest is written under target/.
-#}

{#- The environment variable's name, checked: it is spliced into SQL as a string literal (DuckDB)
    and into a setting name (Postgres), so only a plain upper-case name is accepted. -#}
{% macro _records_pseudonym_key_env(key_env, who) %}
  {%- if key_env is not string or not modules.re.fullmatch('[A-Z][A-Z0-9_]*', key_env) -%}
    {{ exceptions.raise_compiler_error(who ~ ": key_env must name an environment variable in upper case "
       ~ "(letters, digits, underscores, like KANON_PSEUDONYM_KEY), got " ~ kanon._describe_value(key_env)) }}
  {%- endif -%}
  {{ return(key_env) }}
{% endmacro %}

{#- The Postgres setting the key travels in: KANON_PSEUDONYM_KEY -> kanon.pseudonym_key (a custom
    setting needs a dotted name; the KANON_ prefix becomes the dot). kanon_tools.pseudonym_env
    .setting_name is the same rule in Python: keep them in step. -#}
{% macro _records_pseudonym_setting(key_env) %}
  {%- set name = key_env | lower -%}
  {%- if name.startswith('kanon_') and modules.re.match('[a-z]', name[6:]) -%}
    {%- set name = name[6:] -%}
  {%- endif -%}
  {{ return('kanon.' ~ name) }}
{% endmacro %}

{#- SQL (Postgres, Spark): what is wrong with the key text `hex` ('ok' when nothing). The same verdicts,
    in the same order, as kanon_tools.pseudonym_env.key_status, which the DuckDB plugin uses; only
    the verdict ever leaves the server, never the text. mod(), not %, so the SQL can be run with
    DB-API parameters. -#}
{% macro _records_pseudonym_key_status(hex) -%}
  case when {{ hex }} is null or {{ hex }} = '' then 'missing'
  when {{ kanon._records_pseudonym_not_hex(hex) }} then 'not hex'
  when mod(length({{ hex }}), 2) = 1 then 'odd length'
  when length({{ hex }}) < 64 then 'too short'
  else 'ok' end
{%- endmacro %}

{#- Whether the text is not hex: Postgres' regex operator, Spark's rlike. -#}
{% macro _records_pseudonym_not_hex(hex) %}
  {{ return(adapter.dispatch('_records_pseudonym_not_hex', 'kanon')(hex)) }}
{% endmacro %}

{% macro default___records_pseudonym_not_hex(hex) -%}
  {{ hex }} !~ '^[0-9A-Fa-f]+$'
{%- endmacro %}

{% macro spark___records_pseudonym_not_hex(hex) -%}
  not ({{ hex }} rlike '^[0-9A-Fa-f]+$')
{%- endmacro %}

{#- The compile error for a key verdict other than 'ok': what is wrong and how to set the key.
    `where` says where the key was looked for (differs by warehouse); the key itself is never
    shown, only its variable's name. -#}
{% macro _records_pseudonym_key_problem(status, key_env, where, who) %}
  {%- set how = "Set " ~ key_env ~ " to a random key of at least 32 bytes written as hex (64 or more "
      ~ "characters 0-9 a-f), e.g. export " ~ key_env ~ "=$(python -c 'import secrets; print(secrets.token_hex(32))'), "
      ~ "and keep it: the same key gives the same pseudonyms. See docs/pseudonyms.md." -%}
  {%- set what = {
      'missing': 'no pseudonym key: ' ~ where ~ ' is not set or empty',
      'not hex': 'the pseudonym key in ' ~ where ~ ' is not hex text (only 0-9, a-f, A-F; no spaces, no 0x)',
      'odd length': 'the pseudonym key in ' ~ where ~ ' has an odd number of hex digits (two per byte)',
      'too short': 'the pseudonym key in ' ~ where ~ ' is shorter than 32 bytes (64 hex digits)',
  } -%}
  {{ return(who ~ ": " ~ what.get(status, 'the pseudonym key in ' ~ where ~ ' is unusable (' ~ status ~ ')')
      ~ ". " ~ how) }}
{% endmacro %}

{#- The long-form fact key_fingerprint: the first 16 hex digits of the keyed hash of a constant
    under the key in key_env (never the key), so that the trail can tell when a key changed. -#}
{% macro _long_form_key_fingerprint(nulls, key_env) %}
  {{ return(kanon._long_form_fact(nulls, 'key_fingerprint',
      text='substr(' ~ kanon._records_pseudonym("'kanon:key-fingerprint:v1'", key_env) ~ ', 1, 16)')) }}
{% endmacro %}
