{#- The CTEs of a dp count release after _k_events, in order (_counts_dp_release says what each
    holds). `cells` are the cell columns, _k_c<i>; their levels are _k_l<i>. -#}
{% macro _counts_dp_ctes(plan, cells) %}
  {%- set noise = plan.noise -%}
  {%- set levels = plan.steps[0] -%}
  {%- set string = dbt.type_string() -%}
  {%- set materialized = kanon._cte_materialized(true) -%}
  {%- set looked_up = [] -%}
  {%- for d in plan.dims -%}
    {%- if d.hierarchy is not none and levels[loop.index0] > 0 -%}{%- do looked_up.append(d) -%}{%- endif -%}
  {%- endfor -%}
  {%- set needed = [] -%}
  {%- for level in levels -%}{%- do needed.append([level]) -%}{%- endfor -%}
  {{ kanon._counts_lookup_ctes(plan, looked_up, needed) }},
  _k_dp_cells as {{ materialized }} (
    {{ kanon._counts_dp_cells(plan) }}
  ),
  {#- each event's cell at the declared levels, kept when declared: one join with the cells and
      one grouping by person and cell over the events (not a distinct of every person's cells
      first: most of a fine report's pairs are outside a declared set) -#}
  _k_dp_person_cells as {{ materialized }} (
    select _k_labelled._k_person{% for c in cells %}, _k_labelled.{{ c }}{% endfor %}, count(*) as _k_events
    from (
      select
        _k_event._k_person
        {%- for d in plan.dims %}
        {%- set i = loop.index0 %}
        {%- set value = '_k_event._k_d' ~ i ~ '_value' %}
        {%- set recoded = kanon._hierarchy_recode(d, levels[i], value, '_k_hierarchy' ~ i, '_k_roots._k_root' ~ i)
            if levels[i] > 0 else {'label': value, 'level': '0'} %},
        {{ recoded.label }} as _k_c{{ i }},
        {{ recoded.level }} as _k_l{{ i }}
        {%- endfor %}
      from _k_events as _k_event
      {{ kanon._counts_lookup_joins(plan, looked_up, '_k_event') }}
    ) as _k_labelled
    inner join _k_dp_cells as _k_cell
      on {{ kanon._counts_dp_same_cell(cells, '_k_labelled', '_k_cell') }}
    where {% for level in levels %}{% if not loop.first %} and {% endif -%}
      _k_labelled._k_l{{ loop.index0 }} = {{ level }}
    {%- endfor %}
    group by _k_labelled._k_person{% for c in cells %}, _k_labelled.{{ c }}{% endfor %}
  ),
  _k_dp_pairs as {{ materialized }} (
    select
      _k_pc._k_person,
      {%- for c in cells %}
      _k_pc.{{ c }},
      {%- endfor %}
      row_number() over (
        partition by _k_pc._k_person
        order by md5({{ kanon._noise_dp_cell_text(cells, '_k_pc.') }} || ':' || cast(_k_pc._k_person as {{ string }}))
        {%- for c in cells %}, _k_pc.{{ c }}{% endfor %}
      ) as _k_rank
    from _k_dp_person_cells as _k_pc
  ),
  _k_dp_counts as {{ materialized }} (
    select
      {%- for c in cells %}
      _k_cell.{{ c }},
      {%- endfor %}
      coalesce(_k_n._k_count, 0) as _k_count,
      {{ kanon._noise_dp_draw(noise, kanon._noise_dp_cell_text(cells, '_k_cell.')) }} as _k_u
    from _k_dp_cells as _k_cell
    left join (
      select {{ cells | join(', ') }}, count(*) as _k_count
      from _k_dp_pairs
      where _k_rank <= {{ noise.bound }}
      group by {{ cells | join(', ') }}
    ) as _k_n
      on {{ kanon._counts_dp_same_cell(cells, '_k_cell', '_k_n') }}
  ),
  _k_dp_noisy as {{ materialized }} (
    select
      _k_counted.*,
      {%- for level in levels %}
      {{ level }} as _k_l{{ loop.index0 }},
      {%- endfor %}
      _k_counted._k_count + _k_table._k_z as _k_noisy
    from _k_dp_counts as _k_counted
    inner join (
      {{ kanon._noise_dp_table_sql(noise.table) }}
    ) as _k_table
      on _k_counted._k_u >= _k_table._k_lo and _k_counted._k_u < _k_table._k_hi
  )
{%- endmacro %}

{#- The declared cells as _k_c<i> text columns: noise's cells, or the cross product of each
    dimension's distinct hierarchy labels at its level. -#}
{% macro _counts_dp_cells(plan) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set noise = plan.noise -%}
  {%- if noise.cells is not none %}
    select
      {%- for column in noise.get('cell_columns', plan.dims | map(attribute='name') | list) %}
      cast({{ q(column) }} as {{ string }}) as _k_c{{ loop.index0 }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from {{ noise.cells }}
  {%- else %}
    select {% for d in plan.dims %}_k_level{{ loop.index0 }}._k_c{{ loop.index0 }}{% if not loop.last %}, {% endif %}
    {%- endfor %}
    from
    {%- for d in plan.dims %}
      {%- set level_column = q(d.level_columns[plan.steps[0][loop.index0]]) %}
      (select distinct cast({{ level_column }} as {{ string }}) as _k_c{{ loop.index0 }}
       from {{ d.hierarchy }}) as _k_level{{ loop.index0 }}{% if not loop.last %} cross join{% endif %}
    {%- endfor %}
  {%- endif %}
{%- endmacro %}
