-- Blank labels a CSV seed cannot carry (seed loaders read blank fields as null): the good
-- hierarchy plus two blank leaves (empty, spaces) and two whitespace-only parents (tab, newline).
-- chr() exists on every warehouse these fixtures run on (DuckDB, Postgres).
select
    level_0,
    level_1,
    level_2
from {{ ref('hierarchy_good') }}

union all

select
    '' as level_0,
    'Harbour' as level_1,
    '*' as level_2

union all

select
    '   ' as level_0,
    'Harbour' as level_1,
    '*' as level_2

union all

select
    'Quay Street' as level_0,
    chr(9) as level_1,
    '*' as level_2

union all

select
    'Mill Street' as level_0,
    chr(10) || ' ' as level_1,
    '*' as level_2
