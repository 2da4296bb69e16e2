{#- The file release: kanon.release_records through the k_anonymous gate, with what
    var('kanon_records') says. k and the budget are configs, read at parse time, so dbt must be
    given the var on the command line (engine.py always does). -#}
{%- set spec = var('kanon_records') -%}
{{ config(materialized='k_anonymous', k=spec.k, max_suppression=spec.get('max_suppression') or 0) }}
{{ kanon.release_records(records_cli_relation(spec.relation), columns=records_cli_columns(spec),
    l=spec.get('l'), diversity=spec.get('diversity', 'distinct'), privacy_unit=spec.get('privacy_unit'),
    suppression_unit=spec.get('suppression_unit', 'records'), loss=spec.get('loss', 'non_uniform_entropy'),
    missing_value_policy=spec.get('missing_value_policy', 'star'), shuffle_seed=spec.get('shuffle_seed', 'kanon')) }}
