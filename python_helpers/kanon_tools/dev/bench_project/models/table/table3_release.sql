{{ config(materialized='k_anonymous', k=var('bench_k')) }}
-- a three-way table of areas (in districts) x topics x age bands with its subtotals and totals:
-- primary and complementary suppression, gate, audit. Zeros hidden too: with zeros shown, a
-- district's line whose subtotal is k - 1 spread as 1s over k - 1 areas (the rest shown zeros)
-- gives each of them away, and the release is refused (table_search).
{{ kanon.release_table(ref('bench_table3_events'), privacy_unit='person_id', dimensions=['area', 'topic', 'age_band'],
    hierarchies={'area': ref('bench_table3_hierarchy_area')}, hide_zeros=true) }}
