{{ config(materialized='k_anonymous', k=var('bench_k'), max_suppression=0.04) }}
-- Adult with all nine columns as quasi-identifiers (12,960 nodes), k=5, 4 % budget, the loss metric
-- the var bench_loss names (non-uniform entropy by default). Off unless the
-- var bench_adult names Adult's table (schema.table); dbt still parses the file then.
{%- set adult = (var('bench_adult') or 'main.adult').split('.') %}
{%- set columns = {} %}
{%- for column in ['sex', 'age', 'race', 'marital_status', 'education', 'native_country', 'workclass', 'occupation', 'salary_class'] %}
{%- do columns.update({column: {'role': 'quasi_identifier', 'hierarchy': api.Relation.create(
    schema=adult[0], identifier=adult[1] ~ '_hierarchy_' ~ column)}}) %}
{%- endfor %}
{{ kanon.release_records(api.Relation.create(schema=adult[0], identifier=adult[1]), columns=columns,
    loss=var('bench_loss', 'non_uniform_entropy')) }}
