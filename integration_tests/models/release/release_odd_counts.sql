{#- A published table of counts as a hand-written mart could hold them (double precision): what
    the k_anonymous gate refuses at k=5 (NaN, +/-infinity, NULL, 0, a negative, a fraction
    below k, a count beyond any bigint) and two it publishes. kanon.k_anonymous must fail on
    exactly the refused ones; bad_gate_odd_counts stages the same rows behind the gate. -#}
{{ config(materialized='table') }}

{%- set counts = [
    ('nan', "cast('NaN' as double precision)"),
    ('plus_infinity', "cast('Infinity' as double precision)"),
    ('minus_infinity', "cast('-Infinity' as double precision)"),
    ('null', 'cast(null as double precision)'),
    ('zero', '0'),
    ('negative', '-3'),
    ('fraction_below_k', '4.5'),
    ('beyond_bigint', '1e19'),
    ('at_k', '5'),
    ('a_million', '1000000'),
] %}
{%- for key, people in counts %}
select '{{ key }}' as cell_key, cast({{ people }} as double precision) as people
{% if not loop.last %}union all{% endif %}
{%- endfor %}
