{#-
  Compile-time check that the warehouse connection can compute pseudonyms under the key in
  `key_env`: raises a compiler error saying what is missing and how to set it. A no-op while dbt
  parses (execute is false), so it can be called at the top of a model.

  The check asks the warehouse, with a statement that names the variable or setting only, for a
  verdict on the key ('ok', 'missing', 'not hex', 'odd length', 'too short'); the key never
  reaches Jinja, the SQL text or the error. Asking the warehouse, not env_var(), also checks what
  the pseudonyms will really use: the plugin's environment on DuckDB, the session's setting on
  Postgres. (env_var() would also store the key in dbt's manifest, written under target/.)
-#}
{% macro _records_pseudonym_check(key_env='KANON_PSEUDONYM_KEY', who=none) %}
  {%- set who = who or kanon._who('kanon._records_pseudonym_check') -%}
  {%- do kanon._records_pseudonym_key_env(key_env, who) -%}
  {%- if execute -%}
    {%- do adapter.dispatch('_records_pseudonym_check', 'kanon')(key_env, who) -%}
  {%- endif -%}
{% endmacro %}

{% macro default___records_pseudonym_check(key_env, who) %}
  {{ exceptions.raise_compiler_error(who ~ ": pseudonyms are implemented for DuckDB, Postgres and Spark, not for "
      ~ target.type) }}
{% endmacro %}

{#- Spark: the variable in the environment of the JVM dbt's session runs (only the verdict is
    selected). On a cluster every executor reads its own environment, and a row evaluated where
    the key is unusable fails its statement (spark___records_pseudonym). -#}
{% macro spark___records_pseudonym_check(key_env, who) %}
  {%- set key = kanon._records_pseudonym_spark_key(key_env) -%}
  {%- set status = run_query("select " ~ kanon._records_pseudonym_key_status(key)).rows[0][0] -%}
  {%- if status != 'ok' -%}
    {{ exceptions.raise_compiler_error(kanon._records_pseudonym_key_problem(status, key_env,
        "the environment variable " ~ key_env
        ~ " of Spark's JVM (the driver's, and on a cluster each worker's: spark-env.sh)", who)) }}
  {%- endif -%}
{% endmacro %}

{#- DuckDB: the plugin must be loaded (its functions exist), must serve this variable (its
    key_envs), and the variable must hold a usable key in the dbt process's environment. -#}
{% macro duckdb___records_pseudonym_check(key_env, who) %}
  {%- set found = run_query("select count(distinct function_name) from duckdb_functions() "
      ~ "where function_name in ('kanon_hmac_block', 'kanon_pseudonym_key_status')").rows[0][0] -%}
  {%- if found < 2 -%}
    {{ exceptions.raise_compiler_error(who ~ ": this DuckDB connection cannot compute pseudonyms: the dbt-duckdb "
       ~ "plugin kanon_tools.duckdb_pseudonym is not loaded. Add it to the DuckDB output in profiles.yml "
       ~ "(plugins: [{module: kanon_tools.duckdb_pseudonym}]) with kanon-tools installed (pip install "
       ~ "<kanon>/python_helpers), or module_paths: [<kanon>/python_helpers]. See docs/pseudonyms.md.") }}
  {%- endif -%}
  {%- set status = run_query("select kanon_pseudonym_key_status('" ~ key_env ~ "')").rows[0][0] -%}
  {%- if status == 'not served' -%}
    {{ exceptions.raise_compiler_error(who ~ ": the DuckDB pseudonym plugin does not read the key from " ~ key_env
       ~ ": list it in the plugin's config in profiles.yml (config: {key_envs: [" ~ key_env ~ "]}). "
       ~ "The plugin reads only the variables it is told to, so SQL cannot key a hash with any other secret "
       ~ "in dbt's environment.") }}
  {%- elif status != 'ok' -%}
    {{ exceptions.raise_compiler_error(kanon._records_pseudonym_key_problem(
         status, key_env, "the environment variable " ~ key_env ~ " (read by dbt's DuckDB plugin)", who)) }}
  {%- endif -%}
{% endmacro %}

{#- Postgres: the session's setting (given by PGOPTIONS at connection start) must hold a usable key.
    Only the verdict is selected, never the setting. -#}
{% macro postgres___records_pseudonym_check(key_env, who) %}
  {%- set setting = kanon._records_pseudonym_setting(key_env) -%}
  {%- set status = run_query("select " ~ kanon._records_pseudonym_key_status('kanon_setting.hex')
      ~ " from (select current_setting('" ~ setting ~ "', true) as hex) as kanon_setting").rows[0][0] -%}
  {%- if status != 'ok' -%}
    {%- set where = "the Postgres setting " ~ setting ~ " (which carries " ~ key_env ~ " to the server: start dbt with "
        ~ "PGOPTIONS='-c " ~ setting ~ "=<the key>', as kanon_tools.pseudonym_env.pseudonym_env builds it from "
        ~ key_env ~ "; a search_path in the profile makes dbt-postgres replace PGOPTIONS)" -%}
    {{ exceptions.raise_compiler_error(kanon._records_pseudonym_key_problem(status, key_env, where, who)) }}
  {%- endif -%}
{% endmacro %}
