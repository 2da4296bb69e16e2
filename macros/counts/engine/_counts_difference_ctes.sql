{#-
  Step 5 of the engine, for a release_counts release under k_anonymous: the rows to publish
  compared with what the report's previous release showed (ADR 12).

  A nightly mart is the same report released again over growing events: if Monday's row said 40
  and Tuesday's says 41, the difference counts one person, whoever knows of one new event can
  tell it is theirs, and k-anonymity of each release alone says nothing about it. So every row
  to publish is matched, by its labels and levels, with the previous release's rows as the audit
  trail recorded them (kanon_audit_groups: labels, levels and people_shown, the count it
  published), and a change of 1 to k-1 people is a small change: counted (rows_changed_small),
  warned about, and with on_small_change='hold' held: the row is published as the previous
  release published it (its count, and its measures read from the live table), and the trail
  keeps the true count (people) next to the shown one (people_shown), so the next release
  compares with what readers saw and the change accumulates until it reaches k.

    _k_out_rows          every row to publish: the released groups and the remainder row, with
                         its labels and levels as the trail writes them (JSON; NULL for the
                         remainder), and the count it would publish, _k_noisy: its count, or
                         in a noisy release its perturbed count. Changes are measured in what
                         readers see: a noisy count against the noisy count shown before
    _k_previous_release  the report's last RELEASED release before this invocation (none for a
                         first release)
    _k_previous          that release's published rows: labels, levels, the count it showed
    _k_compared          each row to publish with the count shown before (NULL: not published
                         before), whether it changed by 1 to k-1 (_k_small) and is held
                         (_k_held), and under hold with measures, the live row's measures

  A row held is one the previous release published with at least k people (k may have been
  raised since: a smaller count is not republished, and the change is only reported). Rows
  that appear or disappear between releases are counted (rows_appeared, rows_disappeared), not
  held: their appearance says a count crossed k, which no later value can hide (README).

  hold  on_small_change == 'hold'
  live  the live relation of the report (the previous release's table or view), or none
-#}
{% macro _counts_difference_ctes(plan, names, hold, live) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set dim_range = range(plan.dims | length) -%}
  {%- set releases = kanon._audit_relation('kanon_audit_releases') -%}
  {%- set groups = kanon._audit_relation('kanon_audit_groups') -%}
  {%- set report = model.unique_id | replace("'", "''") -%}
  {%- set carried_measures = [] -%}
  {%- for name in plan.measures -%}{%- do carried_measures.append('_k_measure' ~ loop.index0) -%}{%- endfor -%}
  {#- a noisy release carries each row's cell key, and publishes its perturbed count (_k_noisy) -#}
  {%- set carried = carried_measures + (['_k_cell_key'] if plan.noise is not none else []) -%}
  {%- set perturbed = kanon._noise_perturbed(plan.noise, '_k_rows') if plan.noise is not none
      else {'join': '', 'value': '_k_rows._k_count'} -%}
  {%- set live_measures = hold and live is not none and plan.measures | length > 0 -%}
  {#- a change of 1 to k-1 people from what the previous release showed (NULL: not shown before) -#}
  {%- set small -%}
    _k_p._k_shown is not null and _k_o._k_noisy <> _k_p._k_shown
    and _k_o._k_noisy - _k_p._k_shown < {{ plan.k }} and _k_p._k_shown - _k_o._k_noisy < {{ plan.k }}
  {%- endset -%}
  _k_out_rows as (
    select
      _k_rows.*,
      case when _k_rows._k_remainder = 1 then cast(null as {{ string }}) else
        {{ kanon._json_object(kanon._counts_label_pairs(plan, '_k_rows._k_out', '_label', true)) }} end as _k_labels,
      case when _k_rows._k_remainder = 1 then cast(null as {{ string }}) else
        {{ kanon._json_object(kanon._counts_label_pairs(plan, '_k_rows._k_out', '_level', false)) }} end as _k_levels,
      {{ perturbed.value }} as _k_noisy
    from (
      select
        0 as _k_remainder,
        _k_step
        {%- for i in dim_range %},
        _k_out{{ i }}_label,
        _k_out{{ i }}_level
        {%- endfor %},
        _k_count
        {%- for column in carried %},
        {{ column }}
        {%- endfor %}
      from _k_released
      {%- if plan.remainder %}
      union all
      {# One row for everything the ladder suppressed, released only when it too is not thin (at
         least k people, and not dominated): one group of the engine, keyed by a constant. #}
      select
        1 as _k_remainder,
        cast(null as {{ dbt.type_int() }}) as _k_step
        {%- for i in dim_range %},
        cast(null as {{ string }}) as _k_out{{ i }}_label,
        cast(null as {{ dbt.type_int() }}) as _k_out{{ i }}_level
        {%- endfor %},
        _k_count
        {%- for column in carried %},
        {{ column }}
        {%- endfor %}
      from (
        {{ kanon._counts_groups(plan, '(select 1 as _k_everything, _k_suppressed.* from _k_rest_' ~ (names.last + 1)
                                      ~ ' as _k_suppressed) as _k_rest', ['_k_everything']) }}
      ) as _k_remainder_groups
      where not {{ kanon._counts_is_thin(plan) }}
      {%- endif %}
    ) as _k_rows
    {{ perturbed.join }}
  ),
  _k_previous_release as (
    select _k_r.invocation_id
    from {{ releases }} as _k_r
    where {{ kanon._audit_is_previous_release('_k_r', releases) }}
  ),
  _k_previous as (
    select
      coalesce(_k_g.labels, '') as _k_previous_labels,
      coalesce(_k_g.levels, '') as _k_previous_levels,
      max(coalesce(_k_g.people_shown, _k_g.people)) as _k_shown
    from {{ groups }} as _k_g
    where _k_g.report_unique_id = '{{ report }}'
      and _k_g.decision in ('PASS', 'GENERALIZE', 'REMAINDER')
      and _k_g.invocation_id in (select invocation_id from _k_previous_release)
      {#- a noisy row perturbed to 0 was not published: readers never saw it #}
      and coalesce(_k_g.people_shown, _k_g.people) <> 0
    group by coalesce(_k_g.labels, ''), coalesce(_k_g.levels, '')
  ),
  _k_compared as (
    select
      _k_o.*,
      _k_p._k_shown,
      case when {{ small }} then 1 else 0 end as _k_small,
      {%- if hold %}
      case when {{ small }} and _k_p._k_shown >= {{ plan.k }} then 1 else 0 end as _k_held
      {%- else %}
      0 as _k_held
      {%- endif %}
      {%- for name in plan.measures %},
      {#- without a live row, a NULL of the measure's own type (an untyped NULL is text to Postgres) #}
      {{ ('_k_live.' ~ q(name)) if live_measures
         else 'case when 1 = 0 then _k_o._k_measure' ~ loop.index0 ~ ' end' }} as _k_live_measure{{ loop.index0 }}
      {%- endfor %}
    from _k_out_rows as _k_o
    left join _k_previous as _k_p
      on coalesce(_k_o._k_labels, '') = _k_p._k_previous_labels
      {{- ' and ' }}coalesce(_k_o._k_levels, '') = _k_p._k_previous_levels
    {%- if live_measures %}
    {#- the live row of the same labels and levels: what readers see now (NULL-safe: the remainder's are NULL) #}
    left join {{ live }} as _k_live on
      {%- for d in plan.dims %}
      {% if not loop.first %}and {% endif -%}
      (cast(_k_live.{{ q(d.column) }} as {{ string }}) = _k_o._k_out{{ loop.index0 }}_label
        or (_k_live.{{ q(d.column) }} is null and _k_o._k_out{{ loop.index0 }}_label is null))
      and (_k_live.{{ q(d.column ~ '_level') }} = _k_o._k_out{{ loop.index0 }}_level
        or (_k_live.{{ q(d.column ~ '_level') }} is null and _k_o._k_out{{ loop.index0 }}_level is null))
      {%- endfor %}
    {%- endif %}
  )
{%- endmacro %}

{#- The facts of the comparison, as long-form fact rows (each `union all select ...`): rows
    compared with the previous release, changed by 1 to k-1 people (its text: the
    on_small_change setting, which the gate's check small_change reads), held, and, when there
    was a previous release, rows new to this one and rows of the previous one gone. -#}
{% macro _counts_difference_facts(nulls, on_small_change, noisy=false) %}
  {%- set previous = '(select count(*) from _k_previous_release) > 0' -%}
  {#- a noisy release compares what it publishes: not the rows perturbed to 0 -#}
  {%- set source = ('(select * from _k_compared where not ' ~ kanon._counts_perturbed_to_zero() ~ ') as _k_shown_rows')
      if noisy else '_k_compared' -%}
  {{ kanon._long_form_facts_from(nulls, source, [
      ('rows_compared', 'count(_k_shown)'),
      ('rows_changed_small', 'coalesce(sum(_k_small), 0)', kanon._sql_text(on_small_change)),
      ('rows_held', 'coalesce(sum(_k_held), 0)'),
      ('rows_appeared', 'case when ' ~ previous ~ ' then count(*) - count(_k_shown) end'),
      ('rows_disappeared', 'case when ' ~ previous ~ ' then (select count(*) from _k_previous) - count(_k_shown) end')
    ]) }}
{%- endmacro %}

{#- A row of _k_compared that a noisy release does not publish: not held, and perturbed to 0.
    coalesce: a row the ptable did not cover (NULL) stays a published row, which the gate
    refuses, rather than vanishing from the release and the trail alike. -#}
{% macro _counts_perturbed_to_zero() %}
  {{ return('(_k_held = 0 and coalesce(_k_noisy, -1) = 0)') }}
{% endmacro %}
