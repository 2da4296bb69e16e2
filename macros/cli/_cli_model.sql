{#- The one model named `name` in the project's graph, in any package (graph.nodes holds enabled
    nodes only); raises, naming what it found, when there is none or several, or when the model
    is ephemeral and so published nothing. -#}
{% macro _cli_model(name, who) %}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == name -%}
    {%- do found.append(node) -%}
  {%- endfor -%}
  {%- if found | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": no model named '" ~ name
        ~ "' in this project or its packages (enabled models only)") }}
  {%- elif found | length > 1 -%}
    {{ exceptions.raise_compiler_error(who ~ ": several models named '" ~ name ~ "': "
        ~ (found | map(attribute='unique_id') | sort | join(', '))) }}
  {%- endif -%}
  {%- if found[0].config.materialized == 'ephemeral' -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ found[0].unique_id
        ~ " is ephemeral: it publishes no relation to read") }}
  {%- endif -%}
  {{ return(found[0]) }}
{% endmacro %}

{#- The relation a model (a node of _cli_model) was built as; raises, saying how to build it,
    when it is not in the warehouse. -#}
{% macro _cli_model_relation(node, who) %}
  {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
  {%- if relation is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": cannot read "
        ~ api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias)
        ~ ": it is not in the warehouse (build " ~ node.unique_id ~ " with this target first)") }}
  {%- endif -%}
  {{ return(relation) }}
{% endmacro %}
