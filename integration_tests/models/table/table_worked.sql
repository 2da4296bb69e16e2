{# The issue's worked example: 223 people by day x action, k=5. Published as four primary and two
   secondary suppressions (Mon Saves, Tue Follows) with every total visible. The var lets a test
   refuse a re-release on the events without a person (null_unit='error'). #}
{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_activity'), privacy_unit='user_id', row_dimension='day', column_dimension='action',
    null_unit=var('table_null_unit', 'ignore')) }}
