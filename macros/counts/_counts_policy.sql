{#-
  A release's policy: everything that changes what is released, as
    fingerprint  md5 of k, the events relation, the privacy unit and how people are counted, the
                 dimensions (as given and as resolved), the ladder, the NULL policies, the count
                 column, the measures (names and SQL, in order), the remainder row, the dominance
                 rule, max_suppression, the delay, the small-change policy and the noise (mode,
                 ptable content hash, key variable) when set, and the
                 content of every hierarchy. Two releases with the
                 same fingerprint made the same decisions for the same events; a changed
                 fingerprint explains a changed suppression rate;
    plan         JSON recorded with the release (kanon_audit_releases.release_plan): what
                 kanon.audit_cell_fates needs to replay the ladder for any cell, and what the
                 materialization needs to snapshot the hierarchies (their relation, level
                 columns and content hash).
  Runs one small query per hierarchy.
-#}
{% macro _counts_policy(plan, max_suppression=none) %}
  {%- set measures = [] -%}
  {%- for name, expression in plan.measures.items() -%}{%- do measures.append([name, expression]) -%}{%- endfor -%}
  {%- set parts = [
      'k=' ~ plan.k,
      'relation=' ~ plan.relation,
      'privacy_unit=' ~ plan.privacy_unit,
      'count_rows=' ~ plan.count_rows,
      'dimensions=' ~ tojson(plan.dims | map(attribute='name') | list),
      'columns=' ~ tojson(plan.dims | map(attribute='column') | list),
      'ladder=' ~ tojson(plan.steps),
      'null_policy=' ~ plan.null_policy,
      'null_unit=' ~ plan.null_unit,
      'count_column=' ~ plan.count_column,
      'measures=' ~ tojson(measures),
      'remainder=' ~ plan.remainder,
      'dominance=' ~ tojson(plan.dominance, sort_keys=true),
      'max_suppression=' ~ max_suppression,
  ] -%}
  {#- added only when set, so that the fingerprints of releases made before them do not change -#}
  {%- if plan.delay is not none -%}
    {%- do parts.append('delay=' ~ tojson({'column': plan.delay.column, 'days': plan.delay.days,
                                           'as_of': plan.delay.as_of}, sort_keys=true)) -%}
  {%- endif -%}
  {%- if plan.get('on_small_change', 'report') != 'report' -%}
    {%- do parts.append('on_small_change=' ~ plan.on_small_change) -%}
  {%- endif -%}
  {%- set noise = kanon._noise_policy(plan.noise) -%}
  {%- if noise is not none -%}
    {#- what identifies it; its variance and distribution follow from the ptable's hash -#}
    {%- set identity = noise.identity if noise.mode == 'dp'
        else {'mode': noise.mode, 'ptable': noise.ptable, 'key_env': noise.key_env} -%}
    {%- do parts.append('noise=' ~ tojson(identity, sort_keys=true)) -%}
  {%- endif -%}
  {%- set dimensions = [] -%}
  {%- for d in plan.dims -%}
    {%- set hash = kanon._hierarchy_content_hash(d.hierarchy, d.level_columns) if d.hierarchy is not none else none -%}
    {%- if hash is not none -%}
      {%- do parts.append('hierarchy ' ~ d.name ~ '=' ~ hash) -%}
    {%- endif -%}
    {%- do dimensions.append({
        'name': d.name,
        'depth': d.depth,
        'hierarchy': hash,
        'relation': (d.hierarchy | string) if d.hierarchy is not none else none,
        'level_columns': d.level_columns}) -%}
  {%- endfor -%}
  {%- set recorded = {'dimensions': dimensions, 'ladder': plan.steps, 'null_policy': plan.null_policy} -%}
  {%- if noise is not none -%}{%- do recorded.update({'noise': noise}) -%}{%- endif -%}
  {{ return({
      'fingerprint': local_md5(parts | join('\n')),
      'plan': tojson(recorded),
  }) }}
{% endmacro %}
