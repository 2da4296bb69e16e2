{#- The bare aggregate a report's release is measured against: distinct people per finest cell. -#}
{% macro bench_floor(events, dimensions) %}
select
    {{ dimensions | join(',\n    ') }},
    count(distinct patron_token) as people
from {{ events }}
group by {{ dimensions | join(', ') }}
{% endmacro %}
