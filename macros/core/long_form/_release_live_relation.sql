{#- The report's live relation (the previous release, table or view) when it exists: where a
    held row's measures are read from. -#}
{% macro _release_live_relation() %}
  {{ return(adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier)) }}
{% endmacro %}
