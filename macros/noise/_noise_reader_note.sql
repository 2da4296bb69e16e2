{#- What a reader of a noisy mart must know to read it, as the comment on the published relation
    (the model's own description first, when it has one): the mode, what it rests on and the
    standard deviation of a published count, the figure margins of error rest on. The mart is
    where readers look (`describe`, a BI tool's table info); the trail, which has the rest, is
    private. Never a true count or a perturbation. Nothing for an exact release. -#}
{% macro _noise_reader_note(release_plan) %}
  {%- set plan = fromjson(release_plan) if release_plan else {} -%}
  {%- set noise = plan.get('noise') if plan is mapping else none -%}
  {%- if noise is not mapping -%}{{ return(none) }}{%- endif -%}
  {%- set sd = (noise.variance ** 0.5) | round(2) if noise.get('variance') is number else 'not recorded' -%}
  {%- if noise.mode == 'dp' -%}
    {%- set measure = 'epsilon' if noise.get('epsilon') is not none else 'rho' -%}
    {%- set note = "differentially private counts (" ~ noise.mechanism ~ " noise, " ~ measure ~ " " ~ noise[measure]
        ~ " per release, at most " ~ noise.max_cells_per_person ~ " cells per person);"
        ~ " cells whose noisy count is below k are not shown" -%}
  {%- else -%}
    {%- set note = "counts perturbed by the Cell Key Method after the k rule"
        ~ " (the same people, the same perturbation)" -%}
  {%- endif -%}
  {{ return("kanon: " ~ note ~ "; standard deviation of a published count " ~ sd ~ " (docs/reference/noise.md)") }}
{% endmacro %}

{#- Sets the reader's note on the published relation, after persist_docs (which would replace it). -#}
{% macro _noise_publish_reader_note(relation, release_plan, description) %}
  {%- set note = kanon._noise_reader_note(release_plan) -%}
  {%- if note is none -%}{{ return(none) }}{%- endif -%}
  {%- set text = ((description | trim) ~ ' | ' if description and description | trim else '') ~ note -%}
  {% call statement('kanon_noise_reader_note') -%}
    {{ kanon._noise_comment_sql(relation, text) }}
  {%- endcall %}
{% endmacro %}

{% macro _noise_comment_sql(relation, text) %}
  {{ return(adapter.dispatch('_noise_comment_sql', 'kanon')(relation, text)) }}
{% endmacro %}

{% macro default___noise_comment_sql(relation, text) -%}
  comment on table {{ relation }} is {{ kanon._sql_text(text) }}
{%- endmacro %}

{#- On Spark the release is a view over its versions (_swap_release): the note is a table property
    of the view (`show tblproperties`), `comment` being reserved there. -#}
{% macro spark___noise_comment_sql(relation, text) -%}
  alter view {{ relation }} set tblproperties ('kanon.noise' = {{ kanon._sql_text(text) }})
{%- endmacro %}
