{#- The same release without a dominance rule; max_suppression (a var) for the refusal test. -#}
{{ config(materialized='k_anonymous', k=5, max_suppression=var('hardening_max_suppression', 0.5)) }}

{{ hardening_release({'measures': {'amount': 'sum(amount)'}}) }}
