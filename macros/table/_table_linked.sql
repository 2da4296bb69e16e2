{#-
  Linked tables: release_table's `linked_to` (ADR 9, "Linked tables"). Two tables of the same
  events that share dimensions, A = S x X (released first) and B = S x Y (the model naming A),
  share their margins: A's cells at X's total are B's cells at Y's total (the people of each
  node of S). An attacker combines them, so B is searched, gated and audited together with A.

  Together they are one table S x Z, Z the glued dimension: X's tree (from A's mart) and Y's
  tree (from B's events and hierarchy), whose two roots are the same number. In the search's
  terms (_table_cells_ctes and on) Z is B's dimension Y at its place in B's dimensions, its keys
  prefixed by side ('1' X's nodes, '2' Y's; the roots are '1' and '2'), its levels each tree's
  own, so that each tree's lines are lines as before. The cube engine then needs two changes
  (_table_cubes): along Z no move reaches a root from one side only (the other root would not
  follow), and a move from an X leaf to a Y leaf (no common ancestor) is +1 on both chains,
  both roots included, keeping X's equations, Y's and the roots' equality.

  A's cells keep the statuses its mart publishes: its hidden cells are hidden (targets of the
  search like B's own), its published cells and the shared roots it publishes cannot be hidden
  (_k_fixed); B's shared roots take A's status. Only B's cells become secondaries. A's counts
  are recounted from B's events, and B refuses (check table_search) when they disagree with A's
  mart, which also catches A released from other events, S with another hierarchy, or k.
-#}

{#- plan.linked, from release_table's `linked_to` (none, or a list of one released table), once
    B's dimensions are resolved: {relation (A's mart), model, dimension (X as A publishes it),
    column (X's column in B's events), top (X's top level), glued (Y's index in B's
    dimensions), columns (A's published name of each of B's dimensions, X at glued),
    count_column (A's)}. -#}
{% macro _table_linked_plan(who, linked_to, relation, source_columns, dims, k, hide_zeros) %}
  {%- if linked_to is none -%}{{ return(none) }}{%- endif -%}
  {%- if linked_to is string or linked_to is mapping or linked_to is not iterable -%}
    {{ exceptions.raise_compiler_error(who
        ~ ": linked_to must be a list of tables released by kanon.release_table, e.g. "
        ~ "[ref('loans_by_day_kind')], got " ~ kanon._describe_value(linked_to)) }}
  {%- endif -%}
  {%- if linked_to | length == 0 -%}{{ return(none) }}{%- endif -%}
  {%- if linked_to | length > 1 -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to names " ~ linked_to | length
        ~ " tables; kanon links a table to one other "
        ~ "(a pair is searched together, not more); audit any further table of the same events together with"
        ~ " all of them: "
        ~ "python -m kanon_tools attack --report <each>") }}
  {%- endif -%}
  {%- set other = kanon._check_relation(linked_to[0], 'linked_to', who) -%}

  {#- the model that released it, and what it promised: a table release with the same k and zeros -#}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model'
      and (node.schema | lower) == (other.schema | lower) and (node.alias | lower) == (other.identifier | lower) -%}
    {%- do found.append(node) -%}
  {%- endfor -%}
  {%- if found | length != 1 or found[0].config.get('kanon_release_kind') != 'table' -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to " ~ other
        ~ " is not a table released by kanon.release_table in this project") }}
  {%- endif -%}
  {%- set node = found[0] -%}
  {%- if node.unique_id == model.unique_id -%}
    {{ exceptions.raise_compiler_error(who ~ ": a table cannot be linked to itself") }}
  {%- endif -%}
  {%- if node.config.get('k') != k
      or ((node.config.get('kanon_table') or {}).get('hide_zeros') is sameas true) != (hide_zeros is sameas true) -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to " ~ node.name ~ " was released with k=" ~ node.config.get('k')
        ~ " and hide_zeros=" ~ ((node.config.get('kanon_table') or {}).get('hide_zeros') is sameas true)
        ~ "; a linked table needs the same (k=" ~ k
        ~ ", hide_zeros=" ~ (hide_zeros is sameas true) ~ "): their shared totals must carry the same marks") }}
  {%- endif -%}
  {#- a noisy table hides no secondary and its totals are not the sum of their parts: nothing to search together -#}
  {%- if (node.config.get('kanon_table') or {}).get('noisy') -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to " ~ node.name
        ~ " is released with noise, which perturbs its totals instead of"
        ~ " hiding cells; a linked table needs one released without noise") }}
  {%- endif -%}
  {#- a pair only: not a table that is linked itself, nor one another table links to -#}
  {%- set others = [] -%}
  {%- for other_node in graph.nodes.values() if other_node.resource_type == 'model'
      and other_node.unique_id != model.unique_id
      and (other_node.config.get('kanon_table') or {}).get('linked')
      and node.unique_id in other_node.depends_on.nodes -%}
    {%- do others.append(other_node.name) -%}
  {%- endfor -%}
  {%- if (node.config.get('kanon_table') or {}).get('linked') or others -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to " ~ node.name
        ~ (" is linked to another table itself" if (node.config.get('kanon_table') or {}).get('linked')
        else " is linked to by " ~ others | sort | join(', ') ~ " too")
        ~ "; kanon searches a pair of tables together, not more: "
        ~ "audit a further table of the same events together with all of them"
        ~ " (python -m kanon_tools attack --report <each>)") }}
  {%- endif -%}
  {%- set mart = adapter.get_relation(database=other.database, schema=other.schema, identifier=other.identifier) -%}
  {%- if mart is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to " ~ other ~ " is not in the warehouse: build " ~ node.name
        ~ " first") }}
  {%- endif -%}

  {#- its dimensions, as cli_table_cells reads them: the columns published beside <d>_level -#}
  {%- set columns = adapter.get_columns_in_relation(mart) | map(attribute='name') | list -%}
  {%- set count_column = node.config.get('count_column') or 'people' -%}
  {%- for needed in [count_column, 'status'] if needed not in columns -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to " ~ mart ~ " has no column '" ~ needed ~ "'") }}
  {%- endfor -%}
  {%- set theirs = [] -%}
  {%- for name in columns if name ~ '_level' in columns and name ~ '_additive' in columns -%}
  {%- do theirs.append(name) -%}{%- endfor -%}
  {%- set ours = dims | map(attribute='name') | map('lower') | list -%}
  {%- set only_theirs = [] -%}
  {%- for name in theirs if name | lower not in ours -%}{%- do only_theirs.append(name) -%}{%- endfor -%}
  {%- set only_ours = [] -%}
  {%- for d in dims -%}{%- if d.name | lower not in (theirs | map('lower') | list) -%}
  {%- do only_ours.append(loop.index0) -%}{%- endif -%}{%- endfor -%}
  {%- if only_theirs | length != 1 or only_ours | length != 1 or theirs | length != dims | length -%}
    {{ exceptions.raise_compiler_error(who ~ ": linked_to " ~ node.name ~ " breaks down by " ~ theirs | join(', ')
        ~ " and this table by " ~ dims | map(attribute='name') | join(', ')
        ~ "; linked tables must share every dimension but one each (day x kind with day x branch)") }}
  {%- endif -%}
  {%- set glued = only_ours[0] -%}
  {%- set names = [] -%}
  {%- for d in dims -%}
    {%- if loop.index0 == glued -%}{%- do names.append(only_theirs[0]) -%}
    {%- else -%}{%- for name in theirs if name | lower == d.name | lower -%}{%- do names.append(name) -%}{%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set q = kanon._quote -%}
  {%- set top = run_query('select max(' ~ q(only_theirs[0] ~ '_level') ~ ') from ' ~ mart).rows[0][0] -%}
  {{ return({
      'relation': mart | string,
      'model': node.name,
      'dimension': only_theirs[0],
      'column': kanon._resolve_column(only_theirs[0], source_columns, 'linked_to dimension', relation, who),
      'hierarchical': only_theirs[0] ~ '_parent' in columns,
      'top': (top or 1) | int,
      'glued': glued,
      'columns': names,
      'count_column': count_column,
  }) }}
{% endmacro %}

{#- The three SQL expressions of a node of one dimension in the search's terms (level, key,
    parent's key), from a published level, label and parent label (SQL; parent 'null' for a
    flat dimension) and the dimension's top level, each key prefixed by `prefix` (SQL text, a
    linked table's side) when given. The mart's own labels of the total never matter. -#}
{% macro _table_node_sql(level, label, parent, top, prefix=none) %}
  {%- set string = dbt.type_string() -%}
  {%- set nk = kanon._null_key() -%}
  {%- set total = "cast('' as " ~ string ~ ")" -%}
  {%- set key = 'case when ' ~ level ~ ' = ' ~ top ~ ' then ' ~ total ~ ' else coalesce(cast(' ~ label ~ ' as ' ~ string
      ~ '), ' ~ nk ~ ') end' -%}
  {%- set pk = 'case when ' ~ level ~ ' = ' ~ top ~ ' then cast(null as ' ~ string ~ ') when ' ~ level ~ ' = '
      ~ (top - 1) ~ ' then ' ~ total ~ ' else coalesce(cast(' ~ parent ~ ' as ' ~ string ~ '), ' ~ nk ~ ') end' -%}
  {%- if prefix is not none -%}
    {%- set key = prefix ~ ' || (' ~ key ~ ')' -%}
    {%- set pk = prefix ~ ' || (' ~ pk ~ ')' -%}
  {%- endif -%}
  {{ return([level, key, pk]) }}
{% endmacro %}

{#- `_k_linked as (...)`: the linked table's published cells in the glued table's terms (per
    dimension of this table _k_l<i>, _k_k<i>, _k_pk<i>; X's nodes at the glued place, side '1'),
    with the status (_k_status) and count (_k_shown) its mart publishes. -#}
{% macro _table_linked_cte(plan) %}
  {%- set q = kanon._quote -%}
  {%- set linked = plan.linked -%}
_k_linked as (
  select
    {%- for d in plan.dims %}
    {%- set i = loop.index0 %}
    {%- set name = linked.columns[i] %}
    {%- set level = 'cast(' ~ q(name ~ '_level') ~ ' as ' ~ dbt.type_int() ~ ')' %}
    {%- if i == linked.glued %}
    {%- set node = kanon._table_node_sql(level, q(name), q(name ~ '_parent') if linked.hierarchical else 'null',
        linked.top, "'1'") %}
    {%- else %}
    {%- set node = kanon._table_node_sql(level, q(name), q(name ~ '_parent') if d.hierarchy is not none else 'null',
        d.top) %}
    {%- endif %}
    {{ node[0] }} as _k_l{{ i }},
    {{ node[1] }} as _k_k{{ i }},
    {{ node[2] }} as _k_pk{{ i }},
    {%- endfor %}
    cast({{ q('status') }} as {{ dbt.type_string() }}) as _k_status,
    {{ q(linked.count_column) }} as _k_shown
  from {{ linked.relation }}
)
{%- endmacro %}

{#- `<name> as (...)`: X's leaf-to-top chains (as _table_chain_cte's: _k_leaf, _k_l, _k_k,
    _k_pk), from the nodes of `_k_linked`, side '1'. -#}
{% macro _table_linked_chain_cte(plan, name) %}
  {%- set z = plan.linked.glued -%}
{{ name }}_nodes as (
  select distinct _k_l{{ z }} as _k_l, _k_k{{ z }} as _k_k, _k_pk{{ z }} as _k_pk from _k_linked
),

{{ name }} as (
  {%- for up in range(plan.linked.top + 1) %}
  {% if not loop.first %}union all
  {% endif -%}
  select _k_x0._k_k as _k_leaf, _k_x{{ up }}._k_l, _k_x{{ up }}._k_k, _k_x{{ up }}._k_pk
  from {{ name }}_nodes as _k_x0
  {%- for s in range(1, up + 1) %}
  inner join {{ name }}_nodes as _k_x{{ s }} on _k_x{{ s }}._k_l = _k_x{{ s - 1 }}._k_l + 1
    {{- ' and ' }}_k_x{{ s }}._k_k = _k_x{{ s - 1 }}._k_pk
  {%- endfor %}
  where _k_x0._k_l = 0
  {%- endfor %}
)
{%- endmacro %}

{#- The glued dimension's chains (_table_cells_ctes): this table's tree (side '2', `_k_chain<i>y`)
    and the linked table's (side '1', `_k_chain<i>x`), as one `_k_chain<i>`; each CTE followed by
    a comma. -#}
{% macro _table_glued_chain_ctes(plan, d, i) -%}
{{ kanon._table_chain_cte(d, i, '_k_events', "'2'", '_k_chain' ~ i ~ 'y') }},

{{ kanon._table_linked_chain_cte(plan, '_k_chain' ~ i ~ 'x') }},

_k_chain{{ i }} as (
  select * from _k_chain{{ i }}y
  union all
  select * from _k_chain{{ i }}x
),
{%- endmacro %}

{#- What linking adds to the cells' statuses (_table_cells_ctes' _k_marked), as SQL: {statuses
    (the linked mart's, and its status of a shared root, before the cell's own), fixed (whether a
    cell may not be hidden anew: the linked table's cells and this table's shared roots), joins
    (the linked mart's cells, and its shared roots, to each cell)}. Nothing when not linked. -#}
{% macro _table_linked_marks(plan) %}
  {%- if not plan.get('linked') -%}
    {{ return({'statuses': '', 'fixed': '0', 'joins': ''}) }}
  {%- endif -%}
  {%- set n, z = plan.dims | length, plan.linked.glued -%}
  {%- set statuses %}
      when _k_a._k_status is not null then _k_a._k_status
      when _k_r._k_status is not null then _k_r._k_status
  {%- endset -%}
  {%- set fixed = 'case when _k_a._k_status is not null or _k_r._k_status is not null or substr(_k_cells._k_k' ~ z
      ~ ", 1, 1) = '1' then 1 else 0 end" -%}
  {%- set joins %}
  left join _k_linked as _k_a
    on {% for i in range(n) %}_k_a._k_l{{ i }} = _k_cells._k_l{{ i }} and _k_a._k_k{{ i }} = _k_cells._k_k{{ i }}
    {%- if not loop.last %} and {% endif %}{% endfor %}
  left join _k_linked as _k_r
    on _k_cells._k_l{{ z }} = {{ plan.dims[z].top }} and _k_cells._k_k{{ z }} = '2' and _k_r._k_l{{ z }} = {{
      plan.linked.top }} and _k_r._k_k{{ z }} = '1'
    {%- for i in range(n) if i != z %} and _k_r._k_l{{ i }} = _k_cells._k_l{{ i }}
      {{- ' and ' }}_k_r._k_k{{ i }} = _k_cells._k_k{{ i }}
    {%- endfor %}
  {%- endset -%}
  {{ return({'statuses': statuses, 'fixed': fixed, 'joins': joins}) }}
{% endmacro %}

{#- Why this table cannot be released linked to plan.linked, or none: the linked mart is not
    what B's events give (a cell missing from either, or its nodes not a tree; a published count
    that is not the recount; a mark that does not tell the truth), or events whose X value is no
    leaf of the linked table. Counts of cells only. -#}
{% macro _table_linked_refusal(plan) %}
  {%- set n = plan.dims | length -%}
  {%- set z = plan.linked.glued -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
  {%- set same = [] -%}
  {%- for i in range(n) -%}
  {%- do same.append('_k_a._k_l' ~ i ~ ' = _k_c._k_l' ~ i ~ ' and _k_a._k_k' ~ i ~ ' = _k_c._k_k' ~ i) -%}{%- endfor -%}
  {%- set sql -%}
    with {{ kanon._table_cells_ctes(plan) }},
    _k_side as (select * from _k_cells where substr(_k_k{{ z }}, 1, 1) = '1')
    select
      (select count(*) from _k_linked as _k_a where not exists (select 1
        {{- ' from ' }}_k_side as _k_c where {{ same | join(' and ') }}))
      + (select count(*) from _k_side as _k_c where not exists (select 1
        {{- ' from ' }}_k_linked as _k_a where {{ same | join(' and ') }}))
      + (select count(*) from (select _k_l, _k_k from {{ '_k_chain' ~ z }}x_nodes group by _k_l
        {{- ', ' }}_k_k having count(*) > 1) as _k_two),
      (select count(*) from _k_linked as _k_a inner join _k_side as _k_c on {{ same | join(' and ') }}
       where not (
         (_k_a._k_status = 'published' and _k_a._k_shown = _k_c._k_n and (_k_c._k_n >= {{ plan.k }} or (_k_c._k_n = 0
           {{- ' and ' }}{{ lo }} = 1)))
         or (_k_a._k_status = 'primary' and _k_a._k_shown is null and _k_c._k_n >= {{ lo }}
           {{- ' and ' }}_k_c._k_n < {{ plan.k }})
         or (_k_a._k_status = 'secondary' and _k_a._k_shown is null and _k_c._k_n >= {{ plan.k }}))),
      (select count(*) from _k_events where substr(_k_v{{ z }}, 1, 1) = '1'
       and not exists (select 1 from _k_chain{{ z }} as _k_h where _k_h._k_leaf = _k_events._k_v{{ z }}))
  {%- endset -%}
  {%- set found = run_query(sql).rows[0] -%}
  {%- set what = "the linked table " ~ plan.linked.model ~ " (" ~ plan.linked.relation ~ ")" -%}
  {%- if found[2] | int > 0 -%}
    {{ return({'check': 'table_search', 'reason': (found[2] | int) ~ " event(s) have a value of '"
        ~ plan.linked.dimension
        ~ "' that " ~ what ~ " does not publish: it was not released from these events; release it again first"}) }}
  {%- endif -%}
  {%- if found[0] | int > 0 -%}
    {{ return({'check': 'table_search', 'reason': (found[0] | int) ~ " cell(s) of " ~ what
        ~ " are not the cells these events give "
        ~ "(missing on one side, or a node with two parents): it was released from other events or hierarchies;"
        ~ " release it again first"}) }}
  {%- endif -%}
  {%- if found[1] | int > 0 -%}
    {{ return({'check': 'table_search', 'reason': (found[1] | int) ~ " cell(s) of " ~ what
        ~ " publish a count or a mark these events "
        ~ "do not give: it was released from other events; release it again first"}) }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- SQL: whether a cell (alias `cells`) is this table's own, not the linked table's ('true'
    when not linked). -#}
{% macro _table_own_cell(plan, cells) %}
  {%- if plan.get('linked') -%}
    {{ return('substr(' ~ cells ~ '._k_k' ~ plan.linked.glued ~ ", 1, 1) = '2'") }}
  {%- endif -%}
  {{ return('1 = 1') }}
{% endmacro %}

{#- Each dimension's top level in the search's terms: the glued dimension's is the deeper tree's. -#}
{% macro _table_tops(plan) %}
  {%- set tops = [] -%}
  {%- for d in plan.dims -%}
    {%- do tops.append([d.top, plan.linked.top] | max if plan.get('linked')
        and loop.index0 == plan.linked.glued else d.top) -%}
  {%- endfor -%}
  {{ return(tops) }}
{% endmacro %}

{#- Warns when tables linked to this one (their linked_to names it) are not in this run: they were
    searched against this table's previous release, and publishing this one without them may let
    a reader combine the two. Releasing both in one run (dbt build -s <this>+) keeps them a pair. -#}
{% macro _table_linked_followers_warning(who) %}
  {%- set behind = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.unique_id != model.unique_id
      and (node.config.get('kanon_table') or {}).get('linked') and model.unique_id in node.depends_on.nodes
      and node.unique_id not in selected_resources -%}
    {%- do behind.append(node.name) -%}
  {%- endfor -%}
  {%- if behind -%}
    {%- do exceptions.warn(who ~ ": " ~ behind | sort | join(', ')
        ~ " (linked_to this table) are not in this run: they were searched "
        ~ "against its previous release, and a reader combines what both publish; release them in the same run"
        ~ " (dbt build -s "
        ~ model.name ~ "+)") -%}
  {%- endif -%}
{% endmacro %}
