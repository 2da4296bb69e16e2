{#-
  A keyed-hash pseudonym of a SQL expression, as a SQL expression: the lower-case hex of
  HMAC-SHA-256(key, UTF-8 bytes of cast(expression as text)), NULL for NULL. The key is the
  hex-decoded content of the environment variable `key_env`; the same key and text give the same
  pseudonym on every warehouse, and equal Python's
  hmac.new(bytes.fromhex(key), text.encode(), 'sha256').hexdigest().

  The key is never in the SQL this returns, nor anything it can be derived from (HMAC's padded key
  blocks, the hashed key): compiled SQL lands in target/, in logs/dbt.log and in the warehouse's
  query history. Each warehouse reads the key itself at run time; see docs/pseudonyms.md.
  Call kanon._records_pseudonym_check(key_env, who) first: it says at compile time what is missing.
-#}
{% macro _records_pseudonym(expression, key_env='KANON_PSEUDONYM_KEY') %}
  {%- set who = kanon._who('kanon._records_pseudonym') -%}
  {%- if expression is not string or expression | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": expression must be SQL text, got "
        ~ kanon._describe_value(expression)) }}
  {%- endif -%}
  {%- do kanon._records_pseudonym_key_env(key_env, who) -%}
  {{ return(adapter.dispatch('_records_pseudonym', 'kanon')(expression, key_env)) }}
{% endmacro %}

{% macro default___records_pseudonym(expression, key_env) %}
  {{ exceptions.raise_compiler_error(kanon._who('kanon._records_pseudonym') ~ ": pseudonyms are implemented for "
     ~ "DuckDB, Postgres and Spark, not for " ~ target.type) }}
{% endmacro %}

{#- Spark reads the key from the environment of the JVM that evaluates the row (the driver in
    session mode, each executor on a cluster) with reflect(java.lang.System.getenv): the value is
    never in the SQL text, nor in the plan Spark prints with an error (a conf read by ${...}
    substitution would be). Spark 4's hmac() does the rest. A row evaluated where the variable
    is missing or unusable fails the statement (raise_error), never yields NULL. -#}
{% macro spark___records_pseudonym(expression, key_env) -%}
  {%- set key = kanon._records_pseudonym_spark_key(key_env) -%}
  case when {{ kanon._records_pseudonym_key_status(key) }} = 'ok'
    then lower(hex(hmac(unhex({{ key }}), encode(cast({{ expression }} as string), 'UTF-8'))))
    else raise_error('kanon pseudonyms: no usable key in the environment variable {{ key_env }} of a Spark JVM ('
      || {{ kanon._records_pseudonym_key_status(key) }} || '); see docs/pseudonyms.md') end
{%- endmacro %}

{#- The key's text as Spark reads it: the environment variable of the JVM evaluating the row.
    reflect() returns String.valueOf(the result), so an unset variable reads as the text 'null':
    NULL again, so that the verdict is 'missing' and not 'not hex'. -#}
{% macro _records_pseudonym_spark_key(key_env) -%}
  nullif(reflect('java.lang.System', 'getenv', '{{ key_env }}'), 'null')
{%- endmacro %}


{#- DuckDB has no SQL function reading the environment: the scalar UDF kanon_hmac_block,
    registered by the dbt-duckdb plugin kanon_tools.duckdb_pseudonym, reads the key from key_env
    in Python and returns one of HMAC's padded blocks; DuckDB's own sha256 does the rest, as on
    Postgres. Each block is an uncorrelated scalar subquery, run once per statement: native
    hashing is about 8 times faster than a Python HMAC per row (ADR 16). The SQL names the
    variable only. -#}
{% macro duckdb___records_pseudonym(expression, key_env) -%}
  sha256((select kanon_hmac_block('{{ key_env }}', 92))
    || unhex(sha256((select kanon_hmac_block('{{ key_env }}', 54)) || encode(cast({{ expression }} as varchar)))))
{%- endmacro %}

{#- Postgres cannot read the client's environment: the key arrives as the custom setting
    kanon.pseudonym_key, given at connection start by libpq's PGOPTIONS (no SQL statement), and
    the HMAC is built from sha256(bytea) (built in from PG 11; no pgcrypto):
    sha256((K xor opad) || sha256((K xor ipad) || message)). The padded blocks are computed here,
    in SQL, from the setting; each is an uncorrelated subquery, so Postgres runs it once per
    statement (an InitPlan), not once per row. -#}
{% macro postgres___records_pseudonym(expression, key_env) -%}
  {%- set setting = kanon._records_pseudonym_setting(key_env) -%}
  encode(sha256(
    {{ kanon._records_pseudonym_pg_block(setting, 92) }}
    || sha256({{ kanon._records_pseudonym_pg_block(setting, 54) }}
    {{- ' ' }}|| convert_to(cast({{ expression }} as text), 'UTF8'))
  ), 'hex')
{%- endmacro %}

{#- One of HMAC's 64-byte blocks for SHA-256: the key (hashed first when longer than the 64-byte
    block, as HMAC says), zero-padded to 64 bytes, each byte xor `pad` (54 = 0x36 ipad, 92 = 0x5c
    opad). Without a usable key the statement fails rather than yielding NULL pseudonyms: a
    failing cast whose text names the setting and the verdict, never the key. The text includes
    the verdict, which depends on the (stable, not immutable) setting, so Postgres cannot fold the
    cast, and fail, while planning a statement whose key is fine. -#}
{% macro _records_pseudonym_pg_block(setting, pad) -%}
  (select decode(string_agg(lpad(to_hex(get_byte(kanon_block.bytes, kanon_at) # {{ pad }}), 2, '0'), ''
  {{- ' ' }}order by kanon_at), 'hex')
   from (
     select decode(rpad(encode(
       case when length(kanon_key.bytes) > 64 then sha256(kanon_key.bytes) else kanon_key.bytes end, 'hex'), 128, '0'),
       {{- ' ' }}'hex') as bytes
     from (
       select case when kanon_checked.verdict = 'ok' then decode(kanon_checked.hex, 'hex')
         else convert_to(cast(cast('kanon pseudonyms: no usable key in the setting {{ setting }} ('
         {{- ' ' }}|| kanon_checked.verdict
           || '); give it at connection start with PGOPTIONS, see docs/pseudonyms.md' as uuid) as text), 'UTF8')
       end as bytes
       from (
         select kanon_setting.hex, {{ kanon._records_pseudonym_key_status('kanon_setting.hex') }} as verdict
         from (select current_setting('{{ setting }}', true) as hex) as kanon_setting
       ) as kanon_checked
     ) as kanon_key
   ) as kanon_block
   cross join generate_series(0, 63) as kanon_at)
{%- endmacro %}
