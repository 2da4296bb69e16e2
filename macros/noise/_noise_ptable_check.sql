{#-
  The perturbation table a release is about to use, checked in one small query before anything
  runs (the generic tests ptable_* say the same of a seed, under dbt build; this is the release's
  own guard, also under dbt run). Refused, with what is wrong and nothing published:
    - a column missing, a NULL, a negative count, v <> j - i, an empty interval;
    - counts not 0..imax, each with rows (the last, imax, stands for every larger count);
    - intervals that do not tile [0, 2^32) for some count (a gap, an overlap, a bound);
    - a zero that moves (a count of 0 must stay 0);
    - a perturbed value in 1..k-1 (the ptable's js is below k - 1), or imax perturbed to 0
      (then imax + 1 would be published as 1);
    - a biased count: |sum(width * v)| / 2^32 above 1e-6 (the mean perturbation must be 0).
  Returns {'fingerprint': md5 of the table's rows (as the hierarchies'), 'imax': its last count,
  'variance': the variance of v for counts >= imax, what a reader's margin of error rests on,
  'distribution': [[v, probability]] for counts >= imax}.
-#}
{% macro _noise_ptable_check(ptable, k, who) %}
  {%- set columns = kanon._relation_columns(ptable, who).columns | map('lower') | list -%}
  {%- set needed = ['i', 'j', 'v', 'p', 'key_from', 'key_to'] -%}
  {%- set missing = needed | reject('in', columns) | list -%}
  {%- if missing -%}
    {{ exceptions.raise_compiler_error(who ~ ": the perturbation table " ~ ptable ~ " has no column "
        ~ (missing | join(', ')) ~ " (a ptable has columns i, j, v, p, key_from, key_to: docs/reference/noise.md)."
        ~ " Nothing was released.") }}
  {%- endif -%}
  {%- set bigint = dbt.type_bigint() -%}
  {%- set space = kanon._noise_key_space() -%}
  {%- set check_sql -%}
    with _k_pt as (
      select cast(i as {{ bigint }}) as i, cast(j as {{ bigint }}) as j, cast(v as {{ bigint }}) as v,
             cast(key_from as {{ bigint }}) as key_from, cast(key_to as {{ bigint }}) as key_to
      from {{ ptable }}
    ),
    _k_ordered as (
      select _k_pt.*, lag(key_to) over (partition by i order by key_from, key_to) as previous_to from _k_pt
    ),
    _k_per_count as (
      select i, min(key_from) as first_from, max(key_to) as last_to,
             sum(cast(key_to - key_from as decimal(38, 0)) * v) as moment
      from _k_pt group by i
    )
    select
      (select count(*) from _k_pt),
      (select count(*) from _k_pt where i is null or j is null or v is null or key_from is null or key_to is null),
      (select count(*) from _k_pt where i < 0 or j < 0 or v <> j - i or key_to <= key_from),
      (select count(*) from _k_ordered where previous_to is not null and key_from <> previous_to),
      (select count(*) from _k_per_count where first_from <> 0 or last_to <> {{ space }}),
      (select count(*) from _k_per_count), (select min(i) from _k_pt), (select max(i) from _k_pt),
      (select count(*) from _k_pt where i = 0 and j <> 0),
      (select count(*) from _k_pt where j between 1 and {{ k - 1 }}),
      (select count(*) from _k_pt where j = 0 and i > 0 and i = (select max(i) from _k_pt)),
      (select count(*) from _k_per_count where abs(moment) > {{ space }} * 0.000001)
  {%- endset -%}
  {%- set row = run_query(check_sql).rows[0] -%}
  {%- set problems = [] -%}
  {%- if row[0] == 0 -%}{%- do problems.append('it has no rows') -%}{%- endif -%}
  {%- if row[1] > 0 -%}{%- do problems.append(row[1] ~ ' rows with a NULL') -%}{%- endif -%}
  {%- if row[2] > 0 -%}
    {%- do problems.append(row[2] ~ ' rows with a negative count, v other than j - i, or an empty interval') -%}
  {%- endif -%}
  {%- if row[3] > 0 or row[4] > 0 -%}
    {%- do problems.append((row[3] + row[4]) ~ ' gaps, overlaps or bounds where the intervals of a count'
                           ~ ' do not tile [0, ' ~ space ~ ')') -%}
  {%- endif -%}
  {%- if row[0] > 0 and (row[6] != 0 or row[5] != row[7] + 1) -%}
    {%- do problems.append('its counts i are not every whole number from 0 to its largest, ' ~ row[7]) -%}
  {%- endif -%}
  {%- if row[8] > 0 -%}{%- do problems.append('a count of 0 is perturbed (zeros must stay zero)') -%}{%- endif -%}
  {%- if row[9] > 0 -%}
    {%- do problems.append(row[9] ~ ' rows publish a value in 1..' ~ (k - 1) ~ ', below k = ' ~ k
        ~ ' (generate it with --js ' ~ (k - 1) ~ ' or more)') -%}
  {%- endif -%}
  {%- if row[10] > 0 -%}
    {%- do problems.append('its last count ' ~ row[7] ~ ' (which stands for every larger count) is perturbed to 0,'
                           ~ ' so a larger count could be published in 1..k-1') -%}
  {%- endif -%}
  {%- if row[11] > 0 -%}
    {%- do problems.append(row[11] ~ ' counts whose mean perturbation is not 0 (biased)') -%}
  {%- endif -%}
  {%- if problems -%}
    {{ exceptions.raise_compiler_error(who ~ ": the perturbation table " ~ ptable ~ " cannot be used: "
        ~ (problems | join('; ')) ~ ". Nothing was released. See docs/reference/noise.md") }}
  {%- endif -%}
  {#- the perturbation of counts >= imax, v by v: what the report draws -#}
  {%- set top = run_query("select cast(v as " ~ bigint ~ "), sum(cast(key_to as " ~ bigint ~ ") - cast(key_from as "
      ~ bigint ~ ")) from " ~ ptable ~ " where i = " ~ row[7] ~ " group by v order by v") -%}
  {#- its variance from the whole-number widths, here: the same figure whatever the warehouse -#}
  {%- set distribution = [] -%}
  {%- set moments = namespace(second=0) -%}
  {%- for v, width in top.rows -%}
    {%- do distribution.append([v | int, ((width | int) / space) | round(6)]) -%}
    {%- set moments.second = moments.second + (width | int) * (v | int) * (v | int) -%}
  {%- endfor -%}
  {{ return({'fingerprint': kanon._noise_ptable_fingerprint(ptable), 'imax': row[7] | int,
             'variance': (moments.second / space) | round(6), 'distribution': distribution}) }}
{% endmacro %}

{#- The size of the key space: record and cell keys are whole numbers in [0, 2^32). -#}
{% macro _noise_key_space() %}
  {{ return(4294967296) }}
{% endmacro %}

{#- The content hash of a perturbation table (md5 of its rows, as a hierarchy's): what a release
    records, and what the table gate compares the ptable it recomputes with against. -#}
{% macro _noise_ptable_fingerprint(ptable) %}
  {{ return(kanon._hierarchy_content_hash(ptable, ['i', 'j', 'v', 'key_from', 'key_to'])) }}
{% endmacro %}
