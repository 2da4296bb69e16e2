{#-
  A record release's policy and its plan, as recorded with the release:
    fingerprint  md5 of everything that changes what is published: k, l and its kind, the
                 relation, every column's role and generalizer (a hierarchy by its content), the
                 privacy unit, the budget and its unit, the loss metric, the missing-value
                 policy, the pseudonym key's variable name (never the key) and the shuffle seed;
    plan         the JSON kept in kanon_audit_releases.release_plan, read by
                 `python -m kanon_tools receipt`: the policy, the chosen node (in the SQL, since the
                 SQL applies it), and what the search learned (kept off the SQL:
                 _release_learned): the chosen node's loss under every metric, the lattice
                 searched (and the seconds the scan into the class table took, and the search
                 from the class table to the chosen node and its figures), records and classes
                 by fate, the rescue hints, the kept or sensitive columns that nearly identify a
                 person (_records_nearly_unique), the refusal. Aggregates only, never a value of
                 the data. Its `dimensions` name the hierarchies, which the materialization
                 snapshots.
-#}
{% macro _records_policy(plan, search) %}
  {%- set columns = [] -%}
  {%- set dimensions = [] -%}
  {%- for c in plan.columns -%}
    {%- set entry = {'name': c.name, 'role': c.role} -%}
    {%- if c.role == 'identifier' -%}
      {%- do entry.update({'pseudonym': c.get('pseudonym', false)}) -%}
    {%- elif c.role == 'quasi_identifier' -%}
      {%- set qi = plan.qis | selectattr('name', 'equalto', c.name) | first -%}
      {%- do entry.update({'generalizer': qi.generalizer, 'depth': qi.depth}) -%}
      {%- if qi.hierarchy is not none -%}
        {%- set hash = kanon._hierarchy_content_hash(qi.hierarchy, qi.level_columns) -%}
        {%- do entry.update({'hierarchy': hash}) -%}
        {%- do dimensions.append({'name': qi.name, 'depth': qi.depth, 'hierarchy': hash,
            'relation': qi.hierarchy | string, 'level_columns': qi.level_columns}) -%}
      {%- elif qi.generalizer == 'bins' -%}
        {%- do entry.update({'bins': qi.bins}) -%}
      {%- elif qi.generalizer == 'date' -%}
        {%- do entry.update({'date': qi.units}) -%}
      {%- endif -%}
    {%- endif -%}
    {%- do columns.append(entry) -%}
  {%- endfor -%}
  {%- set policy = {
      'kind': 'records', 'k': plan.k, 'l': plan.l, 'diversity': plan.diversity, 'relation': plan.relation | string,
      'privacy_unit': plan.privacy_unit, 'columns': columns, 'metric': plan.loss,
      'missing_value_policy': plan.missing_value_policy,
      'budget': {'share': plan.max_suppression, 'unit': plan.suppression_unit},
      'pseudonym_key_env': plan.pseudonym_key_env, 'shuffle_seed': plan.shuffle_seed} -%}
  {#- only when set, so that earlier releases keep their fingerprints -#}
  {%- if plan.get('on_small_change', 'report') != 'report' -%}
    {%- do policy.update({'on_small_change': plan.on_small_change}) -%}
  {%- endif -%}
  {%- set fingerprint = local_md5(tojson(policy, sort_keys=true)) -%}
  {%- set node = search.node -%}
  {%- set levels = kanon._records_node_levels(plan, node) -%}
  {%- set at = {} -%}
  {%- for qi in plan.qis -%}{%- do at.update({qi.name: levels[qi.index]}) -%}{%- endfor -%}
  {%- set d = search.details -%}
  {%- set recorded = dict(policy) -%}
  {%- do recorded.update({'dimensions': dimensions, 'node': at, 'lattice_size': plan.lattice_size}) -%}
  {#- what the search learned from the data: kept off the SQL text, merged into the plan on the
      private trail by the materialization (_release_learned) -#}
  {%- set learned = {
      'budget': {'limit': search.limit},
      'loss': {
          'height': node._k_loss_height | float,
          'discernibility': node._k_loss_discernibility | float,
          'non_uniform_entropy': node._k_loss_non_uniform_entropy | float},
      'nodes_evaluated': search.nodes_evaluated,
      'search_seconds': search.search_seconds,
      'scan_seconds': search.scan_seconds,
      'records_in': search.records_in,
      'people_in': search.people_in,
      'records_out': d.kept.records if search.refused is none else 0,
      'classes': d.kept.classes + d.too_small.classes + d.not_diverse.classes,
      'classes_suppressed': d.too_small.classes + d.not_diverse.classes,
      'suppressed': {
          'too_small': d.too_small,
          'not_diverse': d.not_diverse,
          'missing_value': {'records': d.missing.records, 'people': d.missing.people}},
      'rescue': search.rescue,
      'nearly_unique': search.get('nearly_unique', []),
      'refused': search.refused} -%}
  {{ return({'fingerprint': fingerprint, 'plan': tojson(recorded, sort_keys=true), 'learned': learned}) }}
{% endmacro %}
