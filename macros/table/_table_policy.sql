{#-
  A table release's policy and its plan, as recorded with the release:
    fingerprint  md5 of everything that changes what is published: k, the relation, the privacy
                 unit (or counting rows), the dimensions in order with the content of each
                 hierarchy, the count column, hide_zeros, the total label, null_unit and the
                 protection width (with the step every protecting cube moves by), and the
                 table it is linked to (_table_linked: its mart, its own dimension, where it is
                 glued), which the gate reads back to check the two together,
                 on_small_change when set, and the noise when set (its mode, the ptable's
                 content hash and the key's variable, as a count release's);
    plan         the JSON kept in kanon_audit_releases.release_plan: the policy, the dimensions
                 (name, column, top level, hierarchy: what the materialization snapshots and
                 what the gate reads back), and what the search did: cells, primary, secondary
                 and published cells, cells that are not the sum of their parts, the rounds and
                 seconds of the search, its first try's bounds (null: one try, every cube),
                 the refusal; a noisy table's noise (_noise_policy, with the ptable's relation,
                 which the gate recomputes the perturbation with). Counts of cells only, never
                 a cell's count.
-#}
{% macro _table_policy(plan, search) %}
  {%- set dimensions = [] -%}
  {%- set hashes = [] -%}
  {%- for d in plan.dims -%}
    {%- set hash = kanon._hierarchy_content_hash(d.hierarchy, d.level_columns) if d.hierarchy is not none else none -%}
    {%- do hashes.append(hash) -%}
    {%- do dimensions.append({'name': d.name, 'column': d.column, 'top': d.top,
        'depth': d.top if d.hierarchy is not none else 0, 'hierarchy': hash,
        'relation': (d.hierarchy | string) if d.hierarchy is not none else none, 'level_columns': d.level_columns}) -%}
  {%- endfor -%}
  {%- set policy = {
      'kind': 'table', 'k': plan.k, 'relation': plan.relation | string, 'privacy_unit': plan.privacy_unit,
      'count_rows': plan.count_rows, 'dimension_columns': plan.dims | map(attribute='column') | list,
      'hierarchies': hashes, 'count_column': plan.count_column, 'hide_zeros': plan.hide_zeros,
      'total_label': plan.total_label, 'null_unit': plan.null_unit, 'protection': plan.protection, 'step': plan.step,
      'linked': plan.linked} -%}
  {#- only when set, so that earlier releases keep their fingerprints -#}
  {%- if plan.get('on_small_change', 'report') != 'report' -%}
    {%- do policy.update({'on_small_change': plan.on_small_change}) -%}
  {%- endif -%}
  {%- set noise = kanon._noise_policy(plan.get('noise')) -%}
  {%- if noise is not none -%}
    {%- do policy.update({'noise': {'mode': noise.mode, 'ptable': noise.ptable, 'key_env': noise.key_env}}) -%}
  {%- endif -%}
  {%- set recorded = dict(policy) -%}
  {%- if noise is not none -%}
    {%- do recorded.update({'noise': dict(noise, relation=plan.noise.ptable | string)}) -%}
  {%- endif -%}
  {%- do recorded.update({
      'dimensions': dimensions,
      'cells': search.cells, 'primary': search.primary, 'secondary': search.secondary, 'published': search.published,
      'non_additive_totals': search.non_additive, 'rounds': search.rounds, 'search_seconds': search.seconds,
      'first_try_bounds': search.get('bounds'),
      'refused': search.refused}) -%}
  {{ return({'fingerprint': local_md5(tojson(policy, sort_keys=true)), 'plan': tojson(recorded, sort_keys=true)}) }}
{% endmacro %}
