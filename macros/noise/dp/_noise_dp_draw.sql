{#- A cell of a dp release as text, the same on every warehouse and unambiguous whatever its
    labels hold: each label as <length>:<label>, joined by commas. -#}
{% macro _noise_dp_cell_text(cells, prefix='') %}
  {%- set parts = [] -%}
  {%- for c in cells -%}
    {%- do parts.append('cast(length(' ~ prefix ~ c ~ ') as ' ~ dbt.type_string() ~ ") || ':' || " ~ prefix ~ c) -%}
  {%- endfor -%}
  {{ return(parts | join(" || ',' || ")) }}
{% endmacro %}

{#- A cell's draw, as SQL: the whole number of the first 60 bits of
    HMAC-SHA-256(key, 'kanon:dp:v1:' || nonce || ':' || the cell as text), in [0, 2^60). Keyed,
    so nobody without the key can predict or replay it; the nonce (the invocation and the model)
    makes it fresh per release, so that releases compose as the budget counts them. The prefix
    keeps draws apart from record keys and pseudonyms made with the same key. -#}
{% macro _noise_dp_draw(noise, cell_text) %}
  {%- set message = kanon._sql_text('kanon:dp:v1:' ~ noise.nonce ~ ':') ~ ' || ' ~ cell_text -%}
  {{ return(kanon._hex_to_bigint(kanon._records_pseudonym(message, noise.key_env),
                                 (kanon._noise_dp_bits() / 4) | int)) }}
{% endmacro %}

{#- The table of _noise_dp_table as a subquery of (_k_z, _k_lo, _k_hi): u in [_k_lo, _k_hi) draws z. -#}
{% macro _noise_dp_table_sql(table) %}
  {%- set bigint = dbt.type_bigint() -%}
  select cast(_k_z as {{ bigint }}) as _k_z, cast(_k_lo as {{ bigint }}) as _k_lo, cast(_k_hi as {{ bigint }}) as _k_hi
  from (values
    {%- for z, lo, hi in table.rows %}
    ({{ z }}, {{ lo }}, {{ hi }}){% if not loop.last %},{% endif %}
    {%- endfor %}
  ) as _k_dp_table (_k_z, _k_lo, _k_hi)
{%- endmacro %}
