{#-
  A `dp` release's noise, checked and resolved (docs/reference/noise.md, "Differential privacy"):

    {'mode': 'dp', 'mechanism': 'laplace', 'epsilon': 0.5, 'max_cells_per_person': 3,
     'budget': {'epsilon': 2.0, 'delta': 1e-6}, 'cells': ref('published_cells'),
     'levels': {'branch': 1}, 'budget_source': 'circulation', 'key_env': 'KANON_NOISE_KEY'}

  mechanism             'laplace' (pure DP, spends epsilon) or 'gaussian' (zCDP, spends rho)
  epsilon / rho         what this release spends: the one its mechanism uses, above 0
  max_cells_per_person  the contribution bound m: a person counts in at most m cells (the
                        others are dropped, and counted); the sensitivity is m (L1) or sqrt(m) (L2)
  budget                the total of the source's releases, {'epsilon' or 'rho': ..., 'delta':
                        ... (default 1e-6)}; a release that would pass it is refused
  cells, levels         the published cells, fixed in advance: a relation with one column per
                        dimension (labels at `levels`), or every combination of the hierarchies'
                        labels at `levels` (a level per dimension, 0 when not given)
  budget_source         the ledger's name for the people the release reads (default: the relation)
  key_env               the key of the draws, read by the warehouse as the pseudonym key is

  Scale: laplace m / epsilon, as OpenDP's make_laplace over an L1 distance of m; gaussian
  sqrt(m / (2 rho)), as make_gaussian over an L2 distance of sqrt(m). The table's distance from
  the exact distribution (tv, _noise_dp_table) becomes delta: m tv (1 + e^(1/scale)) for laplace,
  m tv for gaussian. A fresh draw per release: the nonce is the invocation and the model.
-#}
{% macro _noise_dp_plan(noise, k, who) %}
  {%- set allowed = ['mode', 'mechanism', 'epsilon', 'rho', 'max_cells_per_person', 'budget', 'cells', 'levels',
                     'budget_source', 'key_env'] -%}
  {%- for key in noise if key not in allowed -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise with mode 'dp' takes " ~ (allowed | join(', ')) ~ ", not '" ~ key
        ~ "'") }}
  {%- endfor -%}
  {%- set mechanism = kanon._check_enum(noise.get('mechanism', 'laplace'), "noise's mechanism", ['laplace', 'gaussian'],
                                        who) -%}
  {%- set spends = 'epsilon' if mechanism == 'laplace' else 'rho' -%}
  {%- set other = 'rho' if mechanism == 'laplace' else 'epsilon' -%}
  {%- if noise.get(other) is not none -%}
    {{ exceptions.raise_compiler_error(who ~ ": the " ~ mechanism ~ " mechanism spends " ~ spends ~ ", not " ~ other
        ~ " (laplace: epsilon, pure DP; gaussian: rho, zero-concentrated DP)") }}
  {%- endif -%}
  {%- set amount = kanon._check_number(noise.get(spends), "noise's " ~ spends, who, 0, exclusive=true) -%}
  {%- set bound = kanon._check_whole_number(noise.get('max_cells_per_person'),
      "noise's max_cells_per_person (the cells one person may count in)", who, 1) -%}
  {%- set budget = noise.get('budget') -%}
  {%- if budget is not mapping or budget.get(spends) is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise with mode 'dp' needs a budget, the total its source's releases"
        ~ " may spend: {'" ~ spends ~ "': ..., 'delta': ...}; got " ~ kanon._describe_value(budget)) }}
  {%- endif -%}
  {%- for key in budget if key not in [spends, 'delta'] -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise's budget takes " ~ spends ~ " and delta (the " ~ mechanism
        ~ " mechanism), not '" ~ key ~ "'") }}
  {%- endfor -%}
  {%- set total = kanon._check_number(budget.get(spends), "noise's budget " ~ spends, who, 0, exclusive=true) -%}
  {%- set total_delta = kanon._check_number(budget.get('delta', 0.000001), "noise's budget delta", who, 0) -%}
  {%- if noise.get('cells') is none and noise.get('levels') is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise with mode 'dp' publishes a set of cells fixed in advance:"
        ~ " give cells (a relation of the published cells, one column per dimension) or levels (a hierarchy level per"
        ~ " dimension: every combination of their labels). Cells chosen from the data would tell who is in it") }}
  {%- endif -%}
  {%- if noise.get('cells') is not none -%}
    {%- do kanon._check_relation(noise.cells, "noise's cells", who) -%}
  {%- endif -%}
  {%- if noise.get('levels') is not none and noise.levels is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise's levels must be a mapping {dimension: hierarchy level}, got "
        ~ kanon._describe_value(noise.levels)) }}
  {%- endif -%}
  {%- if noise.get('budget_source') is not none
        and (noise.budget_source is not string or noise.budget_source | trim == '') -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise's budget_source must be a name, got "
        ~ kanon._describe_value(noise.budget_source)) }}
  {%- endif -%}
  {%- set key_env = kanon._records_pseudonym_key_env(noise.get('key_env', 'KANON_NOISE_KEY'), who) -%}
  {%- set scale = (bound / amount) if mechanism == 'laplace' else (bound / (2 * amount)) ** 0.5 -%}
  {%- if scale > 1000 -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise's " ~ spends ~ " " ~ amount ~ " with max_cells_per_person "
        ~ bound ~ " needs a scale of " ~ (scale | round(1)) ~ ", above the largest kanon tabulates (1000):"
        ~ " spend more, or bound people to fewer cells") }}
  {%- endif -%}
  {%- set table = kanon._noise_dp_table(mechanism, scale) -%}
  {%- set e = 2.718281828459045 -%}
  {%- set delta = bound * table.tv * ((1 + e ** (1 / scale)) if mechanism == 'laplace' else 1) -%}
  {%- if execute -%}{%- do kanon._records_pseudonym_check(key_env, who) -%}{%- endif -%}
  {{ return({'mode': 'dp', 'mechanism': mechanism, 'spends': spends, 'amount': amount, 'bound': bound,
             'budget': {spends: total, 'delta': total_delta}, 'cells': noise.get('cells'),
             'levels': noise.get('levels', {}), 'budget_source': noise.get('budget_source'), 'key_env': key_env,
             'scale': scale, 'table': table, 'delta': delta, 'nonce': invocation_id ~ ':' ~ model.unique_id}) }}
{% endmacro %}

{#- What a dp release's policy and recorded plan say of its noise: what identifies it (for the
    fingerprint: not the nonce, which is new each release) and, recorded, what it spent and what
    replays it: the nonce, the scale, the table's hash and its distance from the exact
    distribution, the variance (readers' margins of error). -#}
{% macro _noise_dp_policy(noise) %}
  {%- set identity = {'mode': 'dp', 'mechanism': noise.mechanism, noise.spends: noise.amount,
      'max_cells_per_person': noise.bound, 'cells': (noise.cells | string) if noise.cells is not none else none,
      'levels': noise.levels, 'key_env': noise.key_env} -%}
  {%- set recorded = dict(identity) -%}
  {#- the noise's distribution near 0 (|z| <= 10), as the report draws it -#}
  {%- set distribution = [] -%}
  {%- for z, lo, hi in noise.table.rows if z | abs <= 10 -%}
    {%- do distribution.append([z, ((hi - lo) / 2 ** kanon._noise_dp_bits()) | round(6)]) -%}
  {%- endfor -%}
  {%- do recorded.update({
      'identity': identity, 'scale': noise.scale, 'variance': noise.table.variance, 'table_bound': noise.table.bound,
      'table_hash': local_md5(tojson(noise.table.rows)), 'tv': noise.table.tv, 'nonce': noise.nonce,
      'distribution': distribution,
      'spent': {'source': noise.budget_source, noise.spends: noise.amount, 'delta': noise.delta},
      'budget': noise.budget}) -%}
  {%- if noise.get('spent_before') is not none -%}
    {#- what the ledger held before this release, and what is left after it -#}
    {%- set before = noise.spent_before -%}
    {%- do recorded.update({'spent_before': before, 'remaining': {
        noise.spends: noise.budget[noise.spends] - before[noise.spends] - noise.amount,
        'delta': noise.budget.delta - before.delta - noise.delta}}) -%}
  {%- endif -%}
  {{ return(recorded) }}
{% endmacro %}
