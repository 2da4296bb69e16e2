{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_table(ref('hardening_events'), privacy_unit='person', dimensions=['branch', 'title'], hierarchies={'title': ref('hardening_hierarchy_collide')}) }}
