{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_counts(relation=ref('hardening_events'), dimensions=['branch', 'title'], hierarchies={'title': ref('hardening_hierarchy_title')}, privacy_unit='person', remainder=true) }}
