{#-
  What a release macro learns from the data while its model compiles (a record search's figures:
  records and classes by fate, people, loss, the budget's limit, rescue hints, a refusal and how
  far it missed), for the release plan on the private trail. Compiled SQL is not private: it
  lands in target/compiled and target/run, in manifest.json (which `dbt docs` serves), in dbt's
  debug log, and in every preview. So what was learned is kept in this dbt process's memory,
  under the model's unique id, from the compile to the materialization that follows it in the
  same invocation (dbt compiles a node and runs its materialization in one thread, with one
  manifest), and never written into SQL text.

  The memory is dbt's `graph` (the manifest's flat graph, one object per invocation, which no
  artifact is written from): a context variable that the compile and the materialization both
  see. The materialization takes what was kept (and forgets it) and merges it into the release
  plan before its gate reads the plan; a record release that finds nothing kept is refused,
  never published with a plan that says less than it did.
-#}
{% macro _release_learned_keep(learned, facts={}) %}
  {%- do kanon._release_learned_store().update({model.unique_id: {'plan': learned, 'facts': facts}}) -%}
{% endmacro %}

{#- What the model's release macro kept in this invocation ({} when nothing), forgotten after. -#}
{% macro _release_learned_take() %}
  {{ return(kanon._release_learned_store().pop(model.unique_id, {})) }}
{% endmacro %}

{% macro _release_learned_store() %}
  {%- if 'kanon_learned' not in graph -%}
    {%- do graph.update({'kanon_learned': {}}) -%}
  {%- endif -%}
  {{ return(graph['kanon_learned']) }}
{% endmacro %}

{#- The staged facts with what the release macro learned: merged into release_plan (JSON text;
    the plan's own keys win: they are what the SQL published under), and the facts it counted
    while searching (a record release's input_rows) in place of the long form's, which does not
    state them: no second scan of the input. Refused when the kind says it learns from the data
    and nothing was kept. Updates `facts`. -#}
{% macro _release_facts_with_learned(kind, facts) %}
  {%- set learned = kanon._release_learned_take() -%}
  {%- if not kind.get('learns', false) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if not learned -%}
    {{ exceptions.raise_compiler_error("kanon: " ~ model.unique_id ~ ": what " ~ kind.called
        ~ " learned from the data while the model compiled was not found in this dbt invocation (it is kept in memory,"
        ~ " never in the compiled SQL); run the model with dbt run or dbt build, which compile and release it together."
        ~ " Nothing was published.") }}
  {%- endif -%}
  {%- set plan = fromjson(facts.release_plan) -%}
  {%- for key, value in learned.plan.items() -%}
    {%- if value is mapping and plan.get(key) is mapping -%}
      {%- do plan.update({key: dict(value, **plan[key])}) -%}
    {%- elif key not in plan -%}
      {%- do plan.update({key: value}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do facts.update(learned.facts) -%}
  {%- do facts.update({'release_plan': tojson(plan, sort_keys=true)}) -%}
{% endmacro %}
