{#-
  The gate: the named checks the k_anonymous materialization makes of a staged release before it
  publishes, after reading the release's facts (_release_facts). The release kind's descriptor
  lists its checks in order (_release_kind); each is a macro _gate_check__<name>(gate), looked up
  by name as dbt looks up an incremental strategy, so that a kind brings its own checks in its
  own folder. A check returns why it fails, in counts only, never cells, or ''. The first failing
  check refuses the release; its name is in the error and in kanon_audit_releases.failed_check.

  The checks, by where they live:
    macros/core/gate/checks   input_empty, input_shrink, min_count, null_unit, small_change,
                              output_empty
    macros/counts/gate        suppression_budget
    macros/records/gate       records_search, records_recount, records_budget
    macros/table/gate         table_search, table_noise, table_recount, table_line_rule,
                              no_exact_disclosure

  `gate` is what every check may read: {kind, facts, staging, k, max_suppression,
  count_column}: the descriptor, the facts, the staging relation, and the model's config (the
  gate holds a release to the config, not to what its long form says of itself).
-#}
{% macro _release_checks(gate) %}
  {%- set checks = [] -%}
  {%- for name in gate.kind.checks -%}
    {%- set check = kanon.get('_gate_check__' ~ name) -%}
    {%- if check is none -%}
      {{ exceptions.raise_compiler_error("kanon: release kind '" ~ gate.kind.name ~ "' names a check '" ~ name
          ~ "' but kanon has no macro _gate_check__" ~ name) }}
    {%- endif -%}
    {%- do checks.append((name, check(gate))) -%}
  {%- endfor -%}
  {{ return(checks) }}
{% endmacro %}

{#- The first failing check, as (name, reason), or none when the release may be published. -#}
{% macro _release_failed_check(checks) %}
  {%- for name, reason in checks if reason -%}
    {{ return((name, reason)) }}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{#- The release plan a kind's own checks read, recorded by its long form: {'plan': the plan,
    'refusal': ''} when it is a plan of `kind`, else a refusal saying it is missing. -#}
{% macro _gate_plan(gate, kind) %}
  {%- set plan = fromjson(gate.facts.release_plan or '{}') -%}
  {%- if plan.get('kind') != kind -%}
    {%- set wording = kanon._release_kind_wording(dict(kanon._release_kind_descriptor(kind), name=kind)) -%}
    {{ return({'plan': plan, 'refusal': "the long form carries no " ~ wording.release ~ " plan"}) }}
  {%- endif -%}
  {{ return({'plan': plan, 'refusal': ''}) }}
{% endmacro %}
