select * from {{ ref('release_events') }} where 1 = 0
