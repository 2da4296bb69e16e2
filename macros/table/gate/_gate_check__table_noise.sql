{#- table_noise (tables): the long form is noisy exactly when the model's config says so
    (release_table records it at parse time, and the gate holds a release to its config, as to
    k), and a noisy table's ptable is the one its release checked (the content hash it
    recorded): the ptable check table_recount recomputes every published value with. For a noisy
    table it says, in the log, which checks do not apply and why: table_line_rule and
    no_exact_disclosure rest on totals that are the sum of their parts, and a noisy table's
    totals are each perturbed by their own cell key, so no hidden cell is the difference of
    published values (docs/reference/noise.md, "Tables with totals"). -#}
{% macro _gate_check__table_noise(gate) %}
  {%- set shared = kanon._table_gate_cells(gate) -%}
  {%- if shared.refusal -%}{{ return(shared.refusal) }}{%- endif -%}
  {%- set noise = shared.plan.get('noise') -%}
  {%- if shared.noisy != (noise is not none) -%}
    {{ return("the model is released " ~ ("with" if shared.noisy else "without")
        ~ " noise but its long form's plan says "
        ~ ("none" if noise is none else "noise") ~ ": the checks that rest on additive totals cannot be chosen") }}
  {%- endif -%}
  {%- if noise is none -%}{{ return('') }}{%- endif -%}
  {%- if noise.get('mode') != 'cell_key' or not noise.get('relation') or not noise.get('ptable') -%}
    {{ return("the long form's plan records no cell_key noise with its ptable and the ptable's content hash") }}
  {%- endif -%}
  {%- if kanon._noise_ptable_fingerprint(noise.relation) != noise.ptable -%}
    {{ return("the ptable " ~ noise.relation ~ " is not the one the release checked (its content hash differs): "
        ~ "the published values cannot be recomputed") }}
  {%- endif -%}
  {%- do log("kanon: " ~ model.unique_id
      ~ " is a noisy table (cell_key): every published cell and total is its count plus"
      ~ " the ptable's perturbation for its own cell key, so its totals are not the sum of their parts;"
      ~ " checks table_line_rule and no_exact_disclosure, which rest on totals that are, do not apply;"
      ~ " table_recount recomputes every published value", info=true) -%}
  {{ return('') }}
{% endmacro %}
