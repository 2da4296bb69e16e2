{#- What a staged release publishes: {names: its published columns (every staged column but the
    long form's _kanon_*), select: the statement selecting its published rows from the staging
    table, in the order the kind publishes them in}. -#}
{% macro _release_published(kind, staged, staging) %}
  {%- set names = [] -%}
  {%- for column in staged if not (column.name | lower).startswith('_kanon_') -%}
    {%- do names.append(column.name) -%}
  {%- endfor -%}
  {{ return({'names': names, 'select': 'select ' ~ kanon._quote_list(names) ~ ' from ' ~ staging ~ ' '
      ~ ('where ' ~ kanon._long_form_is('release') if kind.long_form else '')
      ~ (' order by ' ~ kind.order_by if kind.order_by else '')}) }}
{% endmacro %}
