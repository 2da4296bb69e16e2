{#- A person's record key, as SQL: the whole number of the first 32 bits of
    HMAC-SHA-256(key, 'kanon:cell-key:v1:' || the privacy unit as text), a number in [0, 2^32).
    The prefix separates it from the pseudonyms of records releases: with the same key, a
    published pseudonym would otherwise give away its person's record key. The key is read by
    the warehouse (_records_pseudonym); Python's kanon_tools.noise.record_key computes the same. -#}
{% macro _noise_record_key(unit, key_env) %}
  {%- set message = "'kanon:cell-key:v1:' || cast(" ~ unit ~ " as " ~ dbt.type_string() ~ ")" -%}
  {{ return(kanon._hex_to_bigint(kanon._records_pseudonym(message, key_env), 8)) }}
{% endmacro %}
