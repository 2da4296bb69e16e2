{{ config(materialized='table') }}
{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['title'], hierarchies={'title': ref('hardening_hierarchy_collide')}, k=2) }}
