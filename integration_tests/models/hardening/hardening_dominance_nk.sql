{#- (1, 85)-dominance on amount: X|T1 has 5 people but p1 holds 84 of its 88, so it climbs to
    X|F with X|T3 (9 people, 84 of 208). Hand-computed in tests/counts/test_release_hardening.py. -#}
{{ config(materialized='k_anonymous', k=5) }}

{{ hardening_release({
    'measures': {'amount': 'sum(amount)'},
    'dominance': {'rule': 'nk', 'value': 'amount', 'n': 1, 'k': 85},
}) }}
