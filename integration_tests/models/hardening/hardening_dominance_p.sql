{#- The p % rule at p = 10: X|T1's total less its two largest contributions (3) is below 10 % of
    its largest (8.4), so the second largest contributor could estimate p1's amount. -#}
{{ config(materialized='k_anonymous', k=5) }}

{{ hardening_release({
    'measures': {'amount': 'sum(amount)'},
    'dominance': {'rule': 'p_percent', 'value': 'amount', 'p': 10},
}) }}
