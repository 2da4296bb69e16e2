{#-
  records_recount (records): every class of published records (same quasi-identifiers)
  describes at least k people and is l-diverse in every sensitive column, recounted from the
  staged records, independently of the search that chose them. k is the model's config, which
  the gate was given, not what the long form says of itself. Returns why it fails (counts of
  classes only), or ''.
-#}
{% macro _gate_check__records_recount(gate) %}
  {%- set read = kanon._gate_plan(gate, 'records') -%}
  {%- if read.refusal -%}{{ return(read.refusal) }}{%- endif -%}
  {%- set plan, staging, k = read.plan, gate.staging, gate.k -%}
  {%- set q = kanon._quote -%}
  {%- set double = kanon._records_double() -%}
  {%- set qis = [] -%}
  {%- set sensitive = [] -%}
  {%- for c in plan.columns -%}
    {%- if c.role == 'quasi_identifier' -%}{%- do qis.append(q(c.name)) -%}{%- endif -%}
    {%- if c.role == 'sensitive' -%}{%- do sensitive.append(q(c.name)) -%}{%- endif -%}
  {%- endfor -%}
  {%- set released = kanon._long_form_is('release') -%}
  {%- set size = 'count(distinct _kanon_unit)' if plan.privacy_unit else 'count(*)' -%}
  {%- set diverse = kanon._records_recount_diverse(plan, sensitive) -%}
  {%- set sql -%}
    select
      coalesce(sum(case when _k_size < {{ k }} then 1 else 0 end), 0),
      coalesce(sum(case when _k_size >= {{ k }} and not ({{ diverse }}) then 1 else 0 end), 0)
    from (
      select {{ qis | join(', ') }}, {{ size }} as _k_size
      {%- for s in sensitive %}, count(distinct {{ s }}) as _k_distinct{{ loop.index0 }}{% endfor %}
      from {{ staging }}
      where {{ released }}
      group by {{ qis | join(', ') }}
    ) as _k_classes
    {%- if plan.l and plan.diversity == 'entropy' %}
    {%- for s in sensitive %}
    {%- set j = loop.index0 %}
    left join (
      {{ kanon._records_entropy(qis | join(', '), s, 'count(*)', staging, released) }}
    ) as _k_e{{ j }} on
      {%- for column in qis %} {% if not loop.first %}and {% endif %}_k_e{{ j }}.{{ column }} = _k_classes.{{ column }}
      {%- endfor %}
    {%- endfor %}
    {%- endif %}
  {%- endset -%}
  {%- set row = run_query(sql).rows[0] -%}
  {%- if row[0] | int > 0 -%}
    {{ return(row[0] ~ " published class(es) of records describe fewer than k=" ~ k ~ " "
        ~ ('people' if plan.privacy_unit else 'records')) }}
  {%- elif row[1] | int > 0 -%}
    {{ return(row[1] ~ " published class(es) of records are not " ~ plan.l ~ "-diverse (" ~ plan.diversity ~ ")") }}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{% macro _records_recount_diverse(plan, sensitive) %}
  {%- if not plan.l -%}
    {{ return('1 = 1') }}
  {%- endif -%}
  {%- set conditions = [] -%}
  {%- for s in sensitive -%}
    {%- if plan.diversity == 'entropy' -%}
      {%- do conditions.append('coalesce(_k_e' ~ loop.index0 ~ '._k_h, 0) >= ln(' ~ plan.l ~ ') - 1e-9') -%}
    {%- else -%}
      {%- do conditions.append('_k_classes._k_distinct' ~ loop.index0 ~ ' >= ' ~ plan.l) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(conditions | join(' and ')) }}
{% endmacro %}
