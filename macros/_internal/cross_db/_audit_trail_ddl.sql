{#- The audit trail's DDL where warehouses differ: creating a table from its typed empty shell,
    and adding a column the shells gained. -#}
{% macro _audit_trail_create(relation, shell) %}
  {{ return(adapter.dispatch('_audit_trail_create', 'kanon')(relation, shell)) }}
{% endmacro %}

{% macro default___audit_trail_create(relation, shell) %}
  {{ return('create table if not exists ' ~ relation ~ ' as ' ~ shell) }}
{% endmacro %}

{#- Spark: a Parquet table (without `using`, a Hive metastore makes a text-format Hive table). -#}
{% macro spark___audit_trail_create(relation, shell) %}
  {{ return('create table if not exists ' ~ relation ~ ' using parquet as ' ~ shell) }}
{% endmacro %}

{% macro _audit_trail_add_column(relation, name, type) %}
  {{ return(adapter.dispatch('_audit_trail_add_column', 'kanon')(relation, name, type)) }}
{% endmacro %}

{% macro default___audit_trail_add_column(relation, name, type) %}
  {{ return('alter table ' ~ relation ~ ' add column if not exists ' ~ name ~ ' ' ~ type) }}
{% endmacro %}

{#- Spark: `add columns (...)`, without `if not exists` (the caller adds only missing ones). -#}
{% macro spark___audit_trail_add_column(relation, name, type) %}
  {{ return('alter table ' ~ relation ~ ' add columns (' ~ name ~ ' ' ~ type ~ ')') }}
{% endmacro %}
