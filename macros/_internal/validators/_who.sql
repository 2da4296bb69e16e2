{#- How an error names its caller: the public macro the user called, and the model or test it
    was called from ("kanon.release_counts in model.shop.loans_by_branch"). -#}
{% macro _who(macro_name) %}
  {%- set node = model if model is defined and model is mapping and model.get('unique_id') else none -%}
  {{ return(macro_name ~ (' in ' ~ node.unique_id if node is not none else '')) }}
{% endmacro %}
