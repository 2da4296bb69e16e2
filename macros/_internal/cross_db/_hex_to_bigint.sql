{#- The whole number written by the first `digits` hex digits of the text `hex` (lower or upper
    case), as a bigint; digits <= 15, so that it fits. Each warehouse parses hex its own way. -#}
{% macro _hex_to_bigint(hex, digits) %}
  {{ return(adapter.dispatch('_hex_to_bigint', 'kanon')(hex, digits)) }}
{% endmacro %}

{% macro default___hex_to_bigint(hex, digits) -%}
  cast(('0x' || substr({{ hex }}, 1, {{ digits }})) as {{ dbt.type_bigint() }})
{%- endmacro %}

{#- Postgres reads hex through a bit string: 'x' || text cast to bit(n), then to bigint. -#}
{% macro postgres___hex_to_bigint(hex, digits) -%}
  cast(cast(('x' || substr({{ hex }}, 1, {{ digits }})) as bit({{ digits * 4 }})) as bigint)
{%- endmacro %}

{#- Spark converts between bases as text (conv), then casts. -#}
{% macro spark___hex_to_bigint(hex, digits) -%}
  cast(conv(substr({{ hex }}, 1, {{ digits }}), 16, 10) as bigint)
{%- endmacro %}
