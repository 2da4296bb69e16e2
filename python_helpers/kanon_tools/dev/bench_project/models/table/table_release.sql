{{ config(materialized='k_anonymous', k=var('bench_k')) }}
-- a two-way table of areas x topics with its totals: primary and complementary suppression, gate, audit
{{ kanon.release_table(ref('bench_table_events'), privacy_unit='person_id', row_dimension='area',
    column_dimension='topic') }}
