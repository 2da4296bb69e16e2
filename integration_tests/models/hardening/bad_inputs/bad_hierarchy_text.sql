{#- a hierarchy given as its name, not a ref. -#}
{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['title'],
    hierarchies={'title': 'hardening_hierarchy_title'}) }}
