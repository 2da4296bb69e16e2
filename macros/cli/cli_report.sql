{#-
  dbt run-operation kanon.cli_report --args '{reports: [my_mart], since: "2026-01-01"}'

  What `python -m kanon_tools report` reads: the releases of the audit trail (kanon_audit_releases,
  wherever the project put it) in a period, oldest first, with what a reviewer's page shows of
  each, emitted as one KANON_JSON line:
    {relation,
     releases: [{report, report_unique_id, invocation_id, released_at, status, reason, failed_check,
                 k, release_kind, rows_released, cells_in, cells_suppressed, people_suppressed,
                 suppression_rate (text), rows_changed_small, rows_held, release_plan (text),
                 kind_facts (text: JSON {fact: {value, text}})}],
     kinds: {release_kind: {called, heading, facts: [[fact, label]], sizes, grid} or none},
     decisions: [{invocation_id, report_unique_id, decision, ladder_step, groups, people}],
     tables: [{report_unique_id, relation, dimensions, cells: [[[label, level], ...], count, status]]}
              or {report_unique_id, missing: why}],
     sizes: [{report_unique_id, invocation_id, source, measure, k, top, sizes: [[size, cells], ...]}
             or {report_unique_id, invocation_id, missing: why}]}
  kinds: for each kind in the period, what its descriptor says of its report (`report`,
  _release_kind) and its `called`; none for a kind kanon here does not define.
  decisions: the groups a release decided on, counted per decision and ladder step; `people` is
  the people published in them, NULL for SUPPRESS, PRIMARY and SECONDARY (never a suppressed
  group's people). tables: for each report of a kind whose descriptor asks for its grid (a
  table with totals) released in the period, the grid its model publishes now (the graph says
  where), every cell with its labels and levels per dimension, its status and its count only
  where the status is 'published' (a hidden cell's count is never selected). sizes: for the
  latest published release of each report in the period whose kind's descriptor says how
  (report.sizes), how many released cells have each size, counted in the warehouse
  (_cli_report_sizes): a count release's rows from the trail, a table's published cells and
  totals and a record extract's classes from what the model publishes now; only sizes of at
  least k (and a table's published zeros), never a suppressed group's or a hidden cell's.
  reports: names or unique ids (default every report); since: a date, YYYY-MM-DD (default the
  whole trail). A column an older trail lacks is none. Only reads (see
  _cli_read_only).
-#}
{% macro cli_report(reports=none, since=none) %}
  {%- set who = 'kanon.cli_report' -%}
  {%- if reports is not none and (reports is string or reports is mapping or reports is not iterable
        or reports | length == 0 or reports | reject('string') | list | length > 0) -%}
    {{ exceptions.raise_compiler_error(who ~ ": reports must be a non-empty list of released models' names or unique"
        ~ " ids, got " ~ kanon._describe_value(reports)) }}
  {%- endif -%}
  {%- if since is not none and (since is not string or not modules.re.match('^[0-9]{4}-[0-9]{2}-[0-9]{2}$', since)) -%}
    {{ exceptions.raise_compiler_error(who ~ ": since must be a date, YYYY-MM-DD, got "
        ~ kanon._describe_value(since)) }}
  {%- endif -%}
  {%- do kanon._cli_read_only() -%}
  {%- set releases = kanon._cli_audit_releases(who) -%}
  {%- set groups = kanon._audit_relation('kanon_audit_groups') -%}
  {%- set groups = adapter.get_relation(database=groups.database, schema=groups.schema,
                                        identifier=groups.identifier) -%}
  {%- set fields = ['report', 'report_unique_id', 'invocation_id', 'released_at', 'status', 'reason', 'failed_check',
                    'k', 'release_kind', 'rows_released', 'cells_in', 'cells_suppressed', 'people_suppressed',
                    'suppression_rate', 'rows_changed_small', 'rows_held', 'release_plan', 'kind_facts'] -%}
  {%- set counts = ['k', 'rows_released', 'cells_in', 'cells_suppressed', 'people_suppressed', 'rows_changed_small',
                    'rows_held'] -%}
  {%- set present = adapter.get_columns_in_relation(releases) | map(attribute='name') | map('lower') | list -%}
  {%- set where = [] -%}
  {%- if reports is not none -%}
    {%- set names = [] -%}
    {%- for name in reports -%}{%- do names.append("'" ~ name | trim | replace("'", "''") ~ "'") -%}{%- endfor -%}
    {%- do where.append('(report in (' ~ names | join(', ') ~ ') or report_unique_id in (' ~ names | join(', ')
        ~ '))') -%}
  {%- endif -%}
  {%- if since is not none -%}
    {%- do where.append("released_at >= cast('" ~ since ~ "' as " ~ dbt.type_timestamp() ~ ")") -%}
  {%- endif -%}
  {%- set where_sql = (' where ' ~ where | join(' and ')) if where else '' -%}
  {%- set sql -%}
    select
      {%- for field in fields %}
      {% if field in present %}{{ field }}{% else %}cast(null as {{ dbt.type_string() }}) as {{ field }}{% endif %}
      {%- if not loop.last %},{% endif %}
      {%- endfor %}
    from {{ releases }}{{ where_sql }}
    order by released_at, report, invocation_id
  {%- endset -%}
  {#- agate hands numbers back as Decimal and timestamps as datetime, which JSON cannot carry. -#}
  {%- set out = [] -%}
  {%- set tables = {} -%}
  {%- set kinds = {} -%}
  {%- for row in run_query(sql).rows -%}
    {%- set release = {} -%}
    {%- for field in fields -%}
      {%- set value = row[field] -%}
      {%- do release.update({field: none if value is none
                                    else (value | int if field in counts else value | string)}) -%}
    {%- endfor -%}
    {%- do out.append(release) -%}
    {%- if release.release_kind not in kinds -%}
      {%- do kinds.update({release.release_kind: kanon._cli_report_kind(release.release_kind)}) -%}
    {%- endif -%}
    {%- if (kinds[release.release_kind] or {}).get('grid') and release.report_unique_id not in tables -%}
      {%- do tables.update({release.report_unique_id: release.release_kind}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set decisions = [] -%}
  {%- if groups is not none and out | length > 0 -%}
    {%- set decision_sql -%}
      select g.invocation_id, g.report_unique_id, g.decision, g.ladder_step, count(*) as n_groups,
             sum(case when g.decision in ('PASS', 'GENERALIZE', 'REMAINDER') then g.people_shown end) as people
      from {{ groups }} as g
      inner join (select distinct invocation_id, report_unique_id from {{ releases }}{{ where_sql }}) as r
        on r.invocation_id = g.invocation_id and r.report_unique_id = g.report_unique_id
      group by g.invocation_id, g.report_unique_id, g.decision, g.ladder_step
      order by g.invocation_id, g.report_unique_id, g.ladder_step, g.decision
    {%- endset -%}
    {%- for row in run_query(decision_sql).rows -%}
      {%- do decisions.append({'invocation_id': row[0], 'report_unique_id': row[1], 'decision': row[2],
          'ladder_step': none if row[3] is none else row[3] | int, 'groups': row[4] | int,
          'people': none if row[5] is none else row[5] | int}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set grids = [] -%}
  {%- for unique_id, kind in tables.items() -%}
    {%- do grids.append(kanon._cli_report_grid(unique_id, kind)) -%}
  {%- endfor -%}
  {%- set latest = {} -%}
  {%- for release in out if release.status == 'RELEASED' -%}
    {%- do latest.update({release.report_unique_id: release}) -%}
  {%- endfor -%}
  {%- set sizes = [] -%}
  {%- for release in latest.values() if (kinds[release.release_kind] or {}).get('sizes') -%}
    {%- do sizes.append(kanon._cli_report_sizes(release, groups, kinds[release.release_kind].sizes)) -%}
  {%- endfor -%}
  {%- do kanon._cli_emit({'relation': releases | string, 'releases': out, 'kinds': kinds, 'decisions': decisions,
                          'tables': grids, 'sizes': sizes}) -%}
{% endmacro %}

{#- What the descriptor of the release kind `name` says of its report (its `report`, with its
    `called`), or none when kanon here defines no such kind (a kind recorded on an older trail,
    or a model configured with one that does not exist). -#}
{% macro _cli_report_kind(name) %}
  {%- set descriptor = kanon.get('_release_kind__' ~ name) if name is string else none -%}
  {%- if descriptor is none -%}{{ return(none) }}{%- endif -%}
  {%- set kind = descriptor() -%}
  {{ return(dict(kind.get('report') or {}, called=kind.called)) }}
{% endmacro %}

{#- The grid a table release's model publishes now (a kind whose report asks for its grid), as
    cli_table_cells reads it (_cli_table_grid: per cell its labels and levels per dimension, the
    count of a published cell only, the status), with the dimensions' names; {report_unique_id,
    missing} when the model is no longer a release of that kind in the graph or not built. -#}
{% macro _cli_report_grid(unique_id, kind) %}
  {%- set found = kanon._cli_report_mart(unique_id, kind) -%}
  {%- if found.missing -%}
    {{ return({'report_unique_id': unique_id, 'missing': found.missing}) }}
  {%- endif -%}
  {%- set grid = kanon._cli_table_grid(found.node, found.relation, 'kanon.cli_report') -%}
  {{ return(dict(grid, report_unique_id=unique_id, dimensions=grid.dimensions | map(attribute='name') | list)) }}
{% endmacro %}

{#- The model a release of `kind` was made by and the relation it publishes now: {node, relation},
    or {missing: why} when the model is no longer that kind of release in the graph or not built. -#}
{% macro _cli_report_mart(unique_id, kind) %}
  {%- set node = graph.nodes.get(unique_id) -%}
  {%- if node is none or node.config.get('kanon_release_kind') != kind -%}
    {{ return({'missing': 'no longer a ' ~ kind ~ ' release in this project'}) }}
  {%- endif -%}
  {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
  {%- if relation is none -%}
    {{ return({'missing': 'not built with this target'}) }}
  {%- endif -%}
  {{ return({'node': node, 'relation': relation, 'missing': none}) }}
{% endmacro %}

{#- How many released cells of one release have each size, counted in the warehouse the way its
    kind's descriptor names (report.sizes): 'trail_groups', the published rows (PASS, GENERALIZE,
    REMAINDER) from the trail's groups, with the count they were published with (counts);
    'published_cells', the cells whose status is 'published' in the relation the model publishes
    now, by its count column (a table's cells and totals); 'classes', the rows of that relation
    sharing every quasi-identifier of the release plan (a record extract's classes).
    Sizes k to k + 19 one by one, and every larger one as k + 20 (`top`): the page shows how many
    sit at k, k + 1, ...; a table's published zeros as 0. No size from 1 to k - 1 is ever
    selected, so no suppressed group's or hidden cell's count can reach the page. -#}
{% macro _cli_report_sizes(release, groups, method) %}
  {%- set q = kanon._quote -%}
  {%- set k, kind = release.k, release.release_kind -%}
  {%- set out = {'report_unique_id': release.report_unique_id, 'invocation_id': release.invocation_id} -%}
  {%- if k is none -%}{{ return(dict(out, missing='no k recorded')) }}{%- endif -%}
  {%- if method not in ['trail_groups', 'published_cells', 'classes'] -%}
    {{ return(dict(out, missing="no way to count sizes named '" ~ method ~ "'")) }}
  {%- endif -%}
  {%- if method == 'trail_groups' -%}
    {%- if groups is none -%}{{ return(dict(out, missing='no groups on the trail')) }}{%- endif -%}
    {%- set measure = 'people per row' -%}
    {%- set cells -%}
      select people_shown as _k_size from {{ groups }}
      where invocation_id = '{{ release.invocation_id | replace("'", "''") }}'
        and report_unique_id = '{{ release.report_unique_id | replace("'", "''") }}'
        and decision in ('PASS', 'GENERALIZE', 'REMAINDER')
    {%- endset -%}
  {%- else -%}
    {%- set found = kanon._cli_report_mart(release.report_unique_id, kind) -%}
    {%- if found.missing -%}{{ return(dict(out, missing=found.missing)) }}{%- endif -%}
    {%- if method == 'published_cells' -%}
      {%- set count_column = found.node.config.get('count_column') or 'people' -%}
      {%- set measure = count_column ~ ' per cell or total' -%}
      {%- set cells = 'select ' ~ q(count_column) ~ ' as _k_size from ' ~ found.relation
          ~ ' where ' ~ q('status') ~ " = 'published'" -%}
    {%- else -%}
      {%- set columns = {} -%}
      {%- for c in adapter.get_columns_in_relation(found.relation) -%}
        {%- do columns.update({c.name | lower: c.name}) -%}
      {%- endfor -%}
      {%- set qis = [] -%}
      {%- for c in (fromjson(release.release_plan or '{}').get('columns') or []) if c.role == 'quasi_identifier' -%}
        {%- if c.name | lower not in columns -%}
          {{ return(dict(out, missing='the extract has no column ' ~ c.name)) }}
        {%- endif -%}
        {%- do qis.append(q(columns[c.name | lower])) -%}
      {%- endfor -%}
      {%- if qis | length == 0 -%}{{ return(dict(out, missing='no quasi-identifier recorded')) }}{%- endif -%}
      {%- set measure = 'records per class' -%}
      {%- set cells = 'select count(*) as _k_size from ' ~ found.relation ~ ' group by ' ~ qis | join(', ') -%}
    {%- endif -%}
  {%- endif -%}
  {%- set top = k + 20 -%}
  {%- set sql -%}
    select _k_bin, count(*) from (
      select case when _k_size = 0 then 0 when _k_size < {{ top }} then _k_size else {{ top }} end as _k_bin
      from ({{ cells }}) as _k_cells
      where _k_size = 0 or _k_size >= {{ k }}
    ) as _k_bins
    group by _k_bin
    order by _k_bin
  {%- endset -%}
  {%- set bins = [] -%}
  {%- for row in run_query(sql).rows -%}{%- do bins.append([row[0] | int, row[1] | int]) -%}{%- endfor -%}
  {{ return(dict(out, source='trail' if method == 'trail_groups' else 'model', measure=measure, k=k, top=top,
                 sizes=bins)) }}
{% endmacro %}
