{#-
  kanon.release_table: a table of counts about people with its totals, published so that no
  hidden cell can be worked out from them. Two or more dimensions (row_dimension and
  column_dimension for a two-way table), each flat (its values and a total) or with a
  hierarchy whose levels give subtotals (branch -> region -> all). Documented in
  macros/table/_table.yml and the README ("Releasing tables with totals").

  Every cell and total counts distinct people (rows with count_rows=true). Cells and totals
  with 0 < count < k are hidden (primary; zeros too with hide_zeros); the search
  (_table_search, run when the model compiles) hides further cells (secondary) until every
  hidden cell lies on a cube of hidden cells that can move without changing any total (by
  `protection` people, rounded up, when given: every hidden cell's interval is then that wide).
  What this macro returns is the release's long form (macros/core/long_form/_long_form.sql): one
  published row per cell (every combination of every dimension's values and totals), with its
  status, its display (`<k`, `·` or the count) and, along each dimension it totals, whether it
  is the sum of its parts; the hidden cells as audit groups (PRIMARY, SECONDARY: labels and
  levels, never a count); and the facts. The gate recounts the staged table on its own before
  anything is published (checks table_search, table_recount, table_line_rule,
  no_exact_disclosure). Only under materialized='k_anonymous'.
-#}
{% macro release_table(
    relation,
    privacy_unit=none,
    dimensions=none,
    hierarchies=none,
    row_dimension=none,
    column_dimension=none,
    k=none,
    count_column=none,
    count_rows=false,
    hide_zeros=false,
    total_label='Total',
    null_unit='ignore',
    protection=none,
    linked_to=none,
    on_small_change='report',
    noise=none
) -%}
  {{ return(adapter.dispatch('release_table', 'kanon')(
      relation, privacy_unit, dimensions, hierarchies, row_dimension, column_dimension, k, count_column, count_rows,
      hide_zeros, total_label, null_unit, protection, linked_to, on_small_change, noise)) }}
{%- endmacro %}

{% macro default__release_table(relation, privacy_unit, dimensions, hierarchies, row_dimension, column_dimension, k,
    count_column, count_rows, hide_zeros, total_label, null_unit, protection, linked_to, on_small_change, noise) -%}
  {#- At parse time only the kind, the audit dependency and what a reader of the table must know
      to read its marks (are zeros hidden?) and what it promises (the protection width) are
      recorded: kanon_tools' attack reads them; and whether it is linked, which another table
      linking to it must know (_table_linked_plan); and whether it is noisy, which the gate holds
      the long form to (_gate_check__table_noise: a noisy table's totals are not additive). -#}
  {%- if not execute -%}
    {%- do config(kanon_table={'hide_zeros': hide_zeros is sameas true, 'protection': protection,
        'linked': linked_to is not none and linked_to is not string and linked_to is not mapping
            and linked_to | length > 0,
        'noisy': noise is not none}) -%}
    {{ return(kanon._release_at_parse_time('table')) }}
  {%- endif -%}
  {%- set who = kanon._release_who('kanon.release_table') -%}
  {%- do kanon._check_relation(relation, 'relation', who) -%}
  {%- if config.get('materialized') != 'k_anonymous' -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": a table with totals is only published through its gate: configure the model"
        ~ " materialized='k_anonymous' (with k), not '" ~ config.get('materialized') ~ "'") }}
  {%- endif -%}
  {%- do kanon._check_enum(on_small_change, 'on_small_change', ['report', 'refuse'], who) -%}
  {%- set k, count_column = kanon._release_config_defaults(k, count_column, true, who) -%}
  {%- set plan = kanon._table_plan(who, relation, privacy_unit, dimensions, hierarchies, row_dimension,
      column_dimension, k, count_column, count_rows, hide_zeros, total_label, null_unit, protection, linked_to,
      noise) -%}
  {%- do plan.update({'on_small_change': on_small_change}) -%}
  {%- do kanon._table_linked_followers_warning(who) -%}
  {%- set search = kanon._table_search(plan) -%}
  {{ return(kanon._table_long_form(plan, search, kanon._table_policy(plan, search))) }}
{%- endmacro %}

{#- The published columns of one cell of `cells` (an alias with the columns of _k_table): per
    dimension its label (the total's is total_label; NULL for a NULL value), level and, with a
    hierarchy, parent's label; the count when published (_k_shown: its count, or in a noisy table
    its perturbed count), status and display; per dimension whether the cell is the sum of its
    parts along it (never, as published, for a noisy table's totals). Also the labels as SQL, for
    the audit, and the columns' names. -#}
{% macro _table_published(plan, cells) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set nk = kanon._null_key() -%}
  {%- set total = kanon._sql_text(plan.total_label) -%}
  {%- set columns = [] -%}
  {%- set labels = [] -%}
  {%- for d in plan.dims -%}
    {%- set i = loop.index0 -%}
    {#- a linked table's glued dimension: its own side's keys, without the side (_table_linked) -#}
    {%- set glued = plan.get('linked') and i == plan.linked.glued -%}
    {%- set key = ('substr(' ~ cells ~ '._k_k' ~ i ~ ', 2)') if glued else (cells ~ '._k_k' ~ i) -%}
    {%- set parent = ('substr(' ~ cells ~ '._k_pk' ~ i ~ ', 2)') if glued else (cells ~ '._k_pk' ~ i) -%}
    {%- set label = 'case when ' ~ cells ~ '._k_l' ~ i ~ ' = ' ~ d.top ~ ' then ' ~ total ~ ' when ' ~ key ~ ' = ' ~ nk
        ~ ' then null else ' ~ key ~ ' end' -%}
    {%- do labels.append((d.name, label, '_k_l' ~ i)) -%}
    {%- do columns.append('cast(' ~ label ~ ' as ' ~ string ~ ') as ' ~ q(d.name)) -%}
    {%- do columns.append('cast(' ~ cells ~ '._k_l' ~ i ~ ' as ' ~ dbt.type_int() ~ ') as ' ~ q(d.name ~ '_level')) -%}
    {%- if d.hierarchy is not none -%}
      {%- do columns.append('cast(case when ' ~ cells ~ '._k_l' ~ i ~ ' = ' ~ d.top ~ ' then null when ' ~ cells
          ~ '._k_l' ~ i ~ ' = ' ~ (d.top - 1)
          ~ ' then ' ~ total ~ ' when ' ~ parent ~ ' = ' ~ nk ~ ' then null else ' ~ parent ~ ' end as ' ~ string
          ~ ') as ' ~ q(d.name ~ '_parent')) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do columns.append('cast(case when ' ~ cells ~ "._k_status = 'published' then " ~ cells ~ '._k_shown end as '
      ~ dbt.type_bigint() ~ ') as ' ~ q(plan.count_column)) -%}
  {%- do columns.append('cast(' ~ cells ~ '._k_status as ' ~ string ~ ') as ' ~ q('status')) -%}
  {%- do columns.append('cast(case ' ~ cells ~ "._k_status when 'primary' then '<" ~ plan.k
      ~ "' when 'secondary' then '·' else cast(" ~ cells
      ~ '._k_shown as ' ~ string ~ ') end as ' ~ string ~ ') as ' ~ q('display')) -%}
  {%- for d in plan.dims -%}
    {%- set additive = ('case when ' ~ cells ~ '._k_l' ~ loop.index0 ~ ' > 0 then false end')
        if plan.get('noise') is not none
        else (cells ~ '._k_add' ~ loop.index0) -%}
    {%- do columns.append('cast(' ~ additive ~ ' as ' ~ dbt.type_boolean() ~ ') as ' ~ q(d.name ~ '_additive')) -%}
  {%- endfor -%}
  {#- the names, in the columns' order -#}
  {%- set names = [] -%}
  {%- for d in plan.dims -%}
    {%- do names.extend([d.name, d.name ~ '_level'] + ([d.name ~ '_parent'] if d.hierarchy is not none else [])) -%}
  {%- endfor -%}
  {%- do names.extend([plan.count_column, 'status', 'display']) -%}
  {%- for d in plan.dims -%}{%- do names.append(d.name ~ '_additive') -%}{%- endfor -%}
  {{ return({'columns': columns, 'labels': labels, 'names': names}) }}
{% endmacro %}

{#- The long form of a table release: every cell of the plan's table with the search's
    secondaries hidden, the hidden cells' audit groups and the facts. A noisy table
    (docs/reference/noise.md) publishes every cell and total that is not a primary as its count
    plus the ptable's perturbation for its cell key, and a cell perturbed to 0 as 0 (a table shows
    every cell; a count release leaves such a row out): its published cells go to the trail too
    (PASS: true count, count shown, cell key), its primaries with their cell keys. -#}
{% macro _table_long_form(plan, search, policy) -%}
  {%- set noise = plan.get('noise') -%}
  {%- set published = kanon._table_published(plan, '_k_own') -%}
  {%- set perturbed = kanon._noise_perturbed(noise, '_k_table', '_k_n') if noise is not none
      else {'join': '', 'value': '_k_table._k_n'} -%}
  {%- set group = {
      'decision': "case _k_status when 'primary' then 'PRIMARY' when 'secondary' then 'SECONDARY'"
          ~ (" else 'PASS'" if noise is not none else "") ~ " end",
      'value': '_k_n'} -%}
  {%- if noise is not none -%}
    {%- do group.update({'people': "case when _k_status = 'published' then _k_n end",
        'people_shown': "case when _k_status = 'published' then _k_shown end", 'cell_key': '_k_cell_key'}) -%}
  {%- endif -%}
  {%- set statement -%}
  {%- set nulls = [] -%}
  {%- for column in published.columns -%}{%- do nulls.append('null as ' ~ column.split(' as ')[-1] ~ ',') -%}
  {%- endfor -%}
  {%- set nulls = nulls | join('\n    ') -%}
  {%- set labels = [] -%}
  {%- set levels = [] -%}
  {%- set keys = [] -%}
  {%- for name, label, level in published.labels -%}
    {%- do labels.append((name, label, true)) -%}
    {%- do levels.append((name, level, false)) -%}
    {%- do keys.extend([(name, label), (name ~ '_level', '_k_own.' ~ level)]) -%}
  {%- endfor -%}
  {#- each cell against what the live table shows (ADR 12) -#}
  {%- set compared = kanon._live_difference_ctes(kanon._release_live_relation(), keys,
      "case when _k_own._k_status = 'published' then _k_own._k_shown end", '_k_own', plan.count_column, false) -%}
  {%- do group.update({'labels': kanon._json_object(labels), 'levels': kanon._json_object(levels)}) -%}
with
{{ kanon._table_cells_ctes(plan, search.secondaries, noise) }},

{#- this table's own cells (a linked table's are only searched with them: _table_linked), with
    what each shows when published -#}
_k_own as (
  select _k_table.*, {{ perturbed.value }} as _k_shown
  from _k_table
  {{ perturbed.join }}
  where {{ kanon._table_own_cell(plan, '_k_table') }}
)
{%- if compared %},
{{ compared }}
{%- endif %}
{# every cell, its count shown only when published #}
select
  {{ published.columns | join(',\n  ') }},
  {{ kanon._long_form_row('release', group) }}
from _k_own
union all
{# the facts: cells by fate (counts of cells, never a hidden cell's count) ... #}
{{ kanon._long_form_fact(nulls, 'cells_passed',
    "coalesce(sum(case when _k_status = 'published' then 1 else 0 end), 0)", source='_k_own') }}
union all
{{ kanon._long_form_fact(nulls, 'cells_suppressed',
    "coalesce(sum(case when _k_status = 'published' then 0 else 1 end), 0)", source='_k_own') }}
union all
{# ... the events without a person (left out; null_unit says whether that refuses the release) ... #}
{{ kanon._long_form_fact(nulls, 'events_null_unit',
    '0' if plan.count_rows else '(select count(*) from ' ~ plan.relation ~ ' where ' ~ kanon._quote(plan.privacy_unit)
        ~ ' is null)',
    kanon._sql_text(plan.null_unit)) }}
union all
{# ... the events it read (with a person), which the gate compares with the previous release's ... #}
{{ kanon._long_form_fact(nulls, 'input_rows', '(select count(*) from ' ~ plan.relation
    ~ ((' where ' ~ kanon._quote(plan.privacy_unit) ~ ' is not null') if not plan.count_rows else '') ~ ')') }}
{# ... what changed since the previous release ... #}
{{ kanon._live_difference_facts(nulls, compared, plan.k, plan.on_small_change) }}
union all
{# ... and the privacy unit, the policy and plan the table was released under -#}
{{ kanon._long_form_closing_facts(nulls, plan.privacy_unit, policy) }}
{%- if noise is not none %}
union all
{# ... for a noisy table, which key its cell keys were made with (a fingerprint, never the key) -#}
{{ kanon._long_form_key_fingerprint(nulls, noise.key_env) }}
{%- endif %}
  {%- endset -%}
  {#- the long form inside what the table would publish (_long_form_published) -#}
  {{ kanon._long_form_published(statement, published.names) }}
{%- endmacro %}
