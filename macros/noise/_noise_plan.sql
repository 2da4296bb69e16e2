{#-
  The noise of a release, checked and resolved (none when the release publishes exact counts).
  A release's `noise` argument is a mapping:

    {'mode': 'cell_key', 'ptable': ref('my_ptable'), 'key_env': 'KANON_NOISE_KEY'}

  mode     'cell_key': the Cell Key Method (docs/reference/noise.md): every released count is
           perturbed by the perturbation table, looked up by the count and the cell's key;
           'dp': differential privacy with a budget, resolved by _noise_dp_plan
  ptable   the perturbation table (a relation with columns i, j, v, p, key_from, key_to)
  key_env  the environment variable holding the secret key the record keys are hashed with
           (default KANON_NOISE_KEY); read by the warehouse as the pseudonym key is
           (docs/pseudonyms.md), never by Jinja

  At execute time the key is checked (_records_pseudonym_check) and the ptable is checked
  (_noise_ptable_check): a release never runs on a table that could publish 1..k-1. Returns
  {'mode', 'ptable', 'key_env', 'fingerprint', 'imax'}.
-#}
{% macro _noise_plan(noise, k, who) %}
  {%- if noise is none -%}{{ return(none) }}{%- endif -%}
  {%- if noise is not mapping -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise must be a mapping such as {'mode': 'cell_key', 'ptable':"
        ~ " ref('ptable')}, got " ~ kanon._describe_value(noise)) }}
  {%- endif -%}
  {%- set mode = noise.get('mode') -%}
  {%- do kanon._check_enum(mode, "noise's mode", ['cell_key', 'dp'], who) -%}
  {%- if mode == 'dp' -%}{{ return(kanon._noise_dp_plan(noise, k, who)) }}{%- endif -%}
  {%- for key in noise if key not in ['mode', 'ptable', 'key_env'] -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise with mode 'cell_key' takes mode, ptable and key_env, not '" ~ key
        ~ "'") }}
  {%- endfor -%}
  {%- if noise.get('ptable') is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise with mode 'cell_key' needs a ptable, the perturbation table"
        ~ " (ref() of a seed made by `python -m kanon_tools ptable`)") }}
  {%- endif -%}
  {%- do kanon._check_relation(noise.ptable, "noise's ptable", who) -%}
  {%- set key_env = kanon._records_pseudonym_key_env(noise.get('key_env', 'KANON_NOISE_KEY'), who) -%}
  {%- set checked = {'fingerprint': none, 'imax': none, 'variance': none, 'distribution': none} -%}
  {%- if execute -%}
    {%- do kanon._records_pseudonym_check(key_env, who) -%}
    {%- set checked = kanon._noise_ptable_check(noise.ptable, k, who) -%}
  {%- endif -%}
  {{ return({'mode': mode, 'ptable': noise.ptable, 'key_env': key_env,
             'fingerprint': checked.fingerprint, 'imax': checked.imax, 'variance': checked.variance,
             'distribution': checked.distribution}) }}
{% endmacro %}

{#- What a release's policy and its recorded plan say of its noise (none without): the mode, the
    ptable's content hash and last count, the key's variable (never the key), and the variance
    and distribution of the perturbation of counts >= imax (readers' margins of error: the
    variance's square root; the report draws the distribution). -#}
{% macro _noise_policy(noise) %}
  {%- if noise is none -%}{{ return(none) }}{%- endif -%}
  {%- if noise.mode == 'dp' -%}{{ return(kanon._noise_dp_policy(noise)) }}{%- endif -%}
  {{ return({'mode': noise.mode, 'ptable': noise.fingerprint, 'imax': noise.imax, 'key_env': noise.key_env,
             'variance': noise.variance, 'distribution': noise.distribution}) }}
{% endmacro %}
