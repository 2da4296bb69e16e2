{#- null_policy='suppress': the NULL-branch cell is suppressed up front, and on the record. -#}
{{ config(materialized='k_anonymous', k=5) }}

{{ hardening_release({'null_policy': 'suppress'}) }}
