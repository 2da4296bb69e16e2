{#- configured as a count release, but the SQL is a plain aggregate: the kind and what was
    staged disagree, so nothing is published. -#}
{{ config(materialized='k_anonymous', k=2, kanon_release_kind='counts') }}
select title, count(distinct person) as people from {{ ref('hardening_events') }} group by title having count(distinct person) >= 2
