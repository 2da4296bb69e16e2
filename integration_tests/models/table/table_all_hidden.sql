{#- k above every cell and total: every one is hidden, so the table would show nothing. The gate
    refuses it (output_empty) unless config allow_empty_output. -#}
{{ config(materialized='k_anonymous', k=1000000, enabled=var('table_refusals', false)) }}
{{ kanon.release_table(ref('table_activity'), privacy_unit='user_id', row_dimension='day', column_dimension='action') }}
