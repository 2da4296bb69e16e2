{#- Built at k=2. The test releases it again with k above every cell (var hardening_empty_k):
    refused (check output_empty), unless var hardening_allow_empty_output sets
    allow_empty_output, when it publishes nothing with a warning. -#}
{{ config(materialized='k_anonymous', k=var('hardening_empty_k', 2),
    allow_empty_output=var('hardening_allow_empty_output', false)) }}

{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['branch']) }}
