{#-
  dbt run-operation kanon_plan_records --args '{relation: people, k: 5, l: 2, max_suppression: 0.04,
    columns: {person_id: identifier, age: {role: quasi_identifier, bins: [[0, 20, 40, 65]]},
              zip: {role: quasi_identifier, hierarchy: zip_hierarchy}, diagnosis: sensitive}}'

  What a record release of the relation would face, before any run, writing nothing (two reading
  queries; on Postgres in a read-only session): the lattice size, the budget in records (or
  people), the level-0 risk profile (records in classes of 1 person, of 2 to k-1, of k or more,
  at the finest node), whether the most general node reaches k and l at all, and warnings. The
  arguments are those of kanon.release_records, with the relation and every hierarchy given by
  name (a model, seed or snapshot, or 'source_name.table_name'), since run-operation has no ref().
  Logs a summary and emits it as one KANON_JSON line. Aggregates only.
-#}
{% macro kanon_plan_records(relation, columns, k, l=none, diversity='distinct', privacy_unit=none,
    suppression_unit='records', max_suppression=0, missing_value_policy='star') %}
  {%- set who = 'kanon.kanon_plan_records' -%}
  {%- do kanon._cli_read_only() -%}
  {%- set named = {} -%}
  {%- for name, spec in (columns.items() if columns is mapping else []) -%}
    {%- if spec is mapping and spec.get('hierarchy') is string -%}
      {%- do named.update({name: dict(spec, hierarchy=kanon._records_named_relation(spec.hierarchy, who))}) -%}
    {%- else -%}
      {%- do named.update({name: spec}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set plan = kanon._records_plan(who, kanon._records_named_relation(relation, who), named if named else columns,
      k, l, diversity, privacy_unit, suppression_unit, 'height', missing_value_policy, max_suppression,
      'KANON_PSEUDONYM_KEY', 'kanon') -%}
  {%- set size = 'count(distinct _k_person)' if plan.privacy_unit is not none else 'count(*)' -%}
  {%- set labels = [] -%}
  {%- for qi in plan.qis -%}{%- do labels.append('_k_g' ~ qi.index) -%}{%- endfor -%}
  {%- set double = kanon._records_double() -%}
  {%- set sql -%}
    with
    {{ kanon._records_lookup_ctes(plan) }}
    _k_rows as (
      select
        {%- for qi in plan.qis %}
        {{ kanon._records_label(qi, 0) }} as _k_g{{ qi.index }},
        {%- endfor %}
        {%- if plan.privacy_unit is not none %}
        cast(_k_src.{{ kanon._quote(plan.privacy_unit) }} as {{ dbt.type_string() }}) as _k_person,
        {%- endif %}
        {%- for name in plan.sensitive %}
        cast(_k_src.{{ kanon._quote(name) }} as {{ dbt.type_string() }}) as _k_s{{ loop.index0 }},
        {%- endfor %}
        {{ kanon._records_missing_flag(plan) }} as _k_missing
      from {{ kanon._records_from(plan) }}
    ),
    _k_finest as (
      select {{ labels | join(', ') }}, count(*) as _k_records, {{ size }} as _k_size
      from _k_rows where _k_missing = 0 group by {{ labels | join(', ') }}
    ),
    _k_values as (
      {#- the most general node is one class of every record not suppressed up front -#}
      {%- for name in plan.sensitive %}
      {% if not loop.first %}union all {% endif -%}
      select {{ loop.index0 }} as _k_column, _k_s{{ loop.index0 }} as _k_value, count(*) as _k_n
      from _k_rows where _k_missing = 0 and _k_s{{ loop.index0 }} is not null group by _k_s{{ loop.index0 }}
      {%- else %}
      select 0 as _k_column, cast(null as {{ dbt.type_string() }}) as _k_value, 0 as _k_n where 1 = 0
      {%- endfor %}
    ),
    _k_diversity as (
      select _k_column, count(*) as _k_distinct,
        ln(cast(sum(_k_n) as {{ double }})) - sum(_k_n * ln(cast(_k_n as {{ double }}))) / sum(_k_n) as _k_entropy
      from _k_values group by _k_column
    )
    select
      (select count(*) from _k_rows),
      (select {{ size }} from _k_rows),
      (select coalesce(sum(_k_missing), 0) from _k_rows),
      (select coalesce(sum(case when _k_size = 1 then _k_records else 0 end), 0) from _k_finest),
      (select coalesce(sum(case when _k_size > 1 and _k_size < {{ plan.k }} then _k_records else 0 end), 0)
      {{- ' ' }}from _k_finest),
      (select coalesce(sum(case when _k_size >= {{ plan.k }} then _k_records else 0 end), 0) from _k_finest),
      (select count(*) from _k_finest),
      (select {{ size }} from _k_rows where _k_missing = 0),
      (select coalesce(min(_k_distinct), 0) from _k_diversity),
      (select coalesce(min(_k_entropy), 0) from _k_diversity),
      (select count(*) from _k_diversity),
      ln({{ l or 1 }})
  {%- endset -%}
  {%- set row = run_query(sql).rows[0] -%}
  {%- set records_in, people_in, missing = row[0] | int, row[1] | int, row[2] | int -%}
  {%- set total_unit = people_in if suppression_unit == 'people' else records_in -%}
  {%- set limit = (max_suppression * total_unit + 1e-9) | round(0, 'floor') | int -%}
  {%- set top_size, min_distinct, min_entropy, diverse_columns = row[7] | int, row[8] | int, row[9] | float,
      row[10] | int -%}
  {%- set warnings = [] -%}
  {%- if top_size < plan.k -%}
    {%- do warnings.append("k=" ~ plan.k ~ " is unreachable: even with every quasi-identifier fully generalized"
                           ~ " the table describes only " ~ top_size ~ " people") -%}
  {%- endif -%}
  {%- if l is not none and (diverse_columns < plan.sensitive | length
        or (min_distinct < l if diversity == 'distinct' else min_entropy < (row[11] | float) - 1e-9)) -%}
    {%- do warnings.append("l=" ~ l ~ " is unreachable: even fully generalized, a sensitive column is not " ~ l
                           ~ "-diverse (" ~ diversity ~ ")") -%}
  {%- endif -%}
  {%- if missing > limit -%}
    {%- do warnings.append(missing ~ " record(s) are suppressed up front (NULL privacy unit or missing"
                           ~ " quasi-identifier), more than the budget of " ~ limit) -%}
  {%- endif -%}
  {%- if records_in > 0 and (row[3] | int) * 2 > records_in -%}
    {%- do warnings.append((row[3] | int) ~ " of " ~ records_in ~ " records are unique on their quasi-identifiers"
                           ~ " as they are: expect heavy generalization") -%}
  {%- endif -%}
  {%- if limit == 0 and (row[3] | int) + (row[4] | int) > 0 and max_suppression > 0 -%}
    {%- do warnings.append("the budget of max_suppression=" ~ max_suppression ~ " rounds down to 0 " ~ suppression_unit
                           ~ " for this table") -%}
  {%- endif -%}
  {%- set summary = {
      'relation': plan.relation | string, 'k': plan.k, 'l': l, 'diversity': diversity if l is not none else none,
      'lattice_size': plan.lattice_size, 'max_height': plan.max_height,
      'quasi_identifiers': plan.qis | map(attribute='name') | list, 'depths': plan.qis | map(attribute='depth') | list,
      'records_in': records_in, 'people_in': people_in,
      'budget': {'share': max_suppression, 'unit': suppression_unit, 'limit': limit},
      'suppressed_up_front': missing,
      'risk_profile': {'classes': row[6] | int, 'records_in_classes_of_1': row[3] | int,
                       'records_in_classes_of_2_to_k_minus_1': row[4] | int,
                       'records_in_classes_of_k_or_more': row[5] | int},
      'warnings': warnings} -%}
  {%- do log(who ~ ": " ~ summary.relation ~ ": " ~ plan.lattice_size ~ " lattice nodes over "
      ~ (summary.quasi_identifiers | join(', ')) ~ "; " ~ records_in ~ " records, " ~ people_in ~ " people; budget "
      ~ limit ~ " " ~ suppression_unit
      ~ "; at level 0: " ~ summary.risk_profile.records_in_classes_of_1 ~ " records in classes of 1, "
      ~ summary.risk_profile.records_in_classes_of_2_to_k_minus_1 ~ " in classes of 2.." ~ (plan.k - 1) ~ ", "
      ~ summary.risk_profile.records_in_classes_of_k_or_more ~ " in classes of " ~ plan.k ~ " or more", info=true) -%}
  {%- for warning in warnings -%}
    {%- do log(who ~ ": warning: " ~ warning, info=true) -%}
  {%- endfor -%}
  {%- do kanon._cli_emit(summary) -%}
{% endmacro %}

{#- A relation by name, for run-operations (no ref() there): a model, seed or snapshot of the
    project or its packages, or 'source_name.table_name'. -#}
{% macro _records_named_relation(name, who) %}
  {%- if name is not string -%}
    {{ return(name) }}
  {%- endif -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type in ['model', 'seed', 'snapshot'] and node.name == name -%}
    {%- do found.append(node) -%}
  {%- endfor -%}
  {%- for source in graph.sources.values() if source.source_name ~ '.' ~ source.name == name -%}
    {%- do found.append(source) -%}
  {%- endfor -%}
  {%- if found | length != 1 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ ("no" if not found else "more than one")
        ~ " model, seed, snapshot or source named '" ~ name ~ "'") }}
  {%- endif -%}
  {{ return(api.Relation.create(database=found[0].database, schema=found[0].schema,
      identifier=found[0].get('alias') or found[0].get('identifier') or found[0].name, type='table')) }}
{% endmacro %}
