{# Not kanon's engine: a hand-made long form claiming to be a record release, with a class of one
   record, whose plan claims k=1. The gate's own recount must refuse it (records_recount) against
   the model's config k=3, whatever the long form says of itself. #}
{{ config(materialized='k_anonymous', k=3, kanon_release_kind='records', enabled=var('records_refusals', false)) }}
{%- set plan = {'kind': 'records', 'k': 1, 'l': none, 'diversity': none, 'privacy_unit': none, 'refused': none,
    'budget': {'share': 1, 'unit': 'records'},
    'columns': [{'name': 'age', 'role': 'quasi_identifier'}, {'name': 'diagnosis', 'role': 'keep'}]} %}
{#- what a search would have learned, kept as release_records keeps it (_release_learned) -#}
{%- if execute %}{% do kanon._release_learned_keep({'refused': none}) %}{% endif %}
{%- set long_form %}
select cast(age as {{ dbt.type_string() }}) as age, diagnosis,
  {{ kanon._long_form_row('release', {'shuffle': "'x'"}) }}
from {{ ref('records_people') }}
where age between 30 and 45 or patron_id = 'P001'
union all
select null, null, {{ kanon._long_form_row('fact', {'fact': "'release_plan'", 'text': "'" ~ tojson(plan) ~ "'"}) }}
union all
select null, null, {{ kanon._long_form_row('fact', {'fact': "'records_in'", 'value': '72'}) }}
{%- endset %}
{{ kanon._long_form_published(long_form, ['age', 'diagnosis'], '_kanon_shuffle') }}
