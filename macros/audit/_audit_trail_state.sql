{#-
  What the warehouse holds of the audit trail (_audit_trail.sql has the trail's life cycle), in
  one query, per warehouse: which relations are missing, views or neither table nor view, and
  which privileges other roles hold on them. Creation, the releases and the on-run-end hook read
  it.
-#}

{#- What the warehouse holds of the audit relations, in one query: {'missing': [relations],
    'views': [relations], 'not_tables': [relations] (neither table nor view), 'foreign':
    [(relation, grantee, privilege)]}. `foreign` lists
    every privilege a role other than the owner (and the role dbt runs as) holds on them, table-
    or column-level, PUBLIC included; SELECT of a kanon_audit_readers role is not foreign. -#}
{% macro _audit_trail_state(relations) %}
  {{ return(adapter.dispatch('_audit_trail_state', 'kanon')(relations)) }}
{% endmacro %}

{% macro default___audit_trail_state(relations) %}
  {%- set sql -%}
    select lower(table_schema), lower(table_name), table_type
    from information_schema.tables
    where
    {%- for relation in relations %}
      {% if not loop.first %}or {% endif %}(lower(table_schema) = lower('{{ relation.schema | replace("'", "''") }}')
        and lower(table_name) = lower('{{ relation.identifier | replace("'", "''") }}')
        {%- if relation.database %} and lower(table_catalog) = lower('{{ relation.database | replace("'", "''")
          }}'){% endif %})
    {%- endfor %}
  {%- endset -%}
  {%- set found = {} -%}
  {%- for row in run_query(sql).rows -%}
    {%- do found.update({(row[0], row[1]): row[2]}) -%}
  {%- endfor -%}
  {%- set state = {'missing': [], 'views': [], 'not_tables': [], 'foreign': []} -%}
  {%- for relation in relations -%}
    {%- set kind = found.get(((relation.schema | lower), (relation.identifier | lower))) -%}
    {%- if kind is none -%}
      {%- do state.missing.append(relation) -%}
    {%- elif (kind | upper) == 'VIEW' -%}
      {%- do state.views.append(relation) -%}
    {%- elif (kind | upper) not in ['BASE TABLE', 'LOCAL TEMPORARY'] -%}
      {%- do state.not_tables.append(relation) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(state) }}
{% endmacro %}

{% macro postgres___audit_trail_state(relations) %}
  {%- set readers = kanon._audit_trail_readers() -%}
  {%- set sql -%}
    with audit as (
      select c.oid, n.nspname, c.relname, c.relkind, c.relowner, c.relacl
      from pg_catalog.pg_class as c
      inner join pg_catalog.pg_namespace as n on c.relnamespace = n.oid
      where (n.nspname, c.relname) in (
        {%- for relation in relations -%}
        ('{{ relation.schema | replace("'", "''") }}', '{{ relation.identifier | replace("'", "''") }}')
        {%- if not loop.last %}, {% endif %}
        {%- endfor -%})
    ),
    granted as (
      select a.oid, g.grantee, g.privilege_type from audit as a cross join lateral aclexplode(a.relacl) as g
      union
      select a.oid, g.grantee, g.privilege_type
      from audit as a
      inner join pg_catalog.pg_attribute as att on a.oid = att.attrelid and att.attnum > 0 and not att.attisdropped
      cross join lateral aclexplode(att.attacl) as g
    ),
    foreign_grants as (
      select
        granted.oid,
        case when granted.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(granted.grantee)) end as grantee,
        granted.privilege_type
      from granted
      inner join audit as a on granted.oid = a.oid
      where granted.grantee <> a.relowner
        and granted.grantee <> (select r.oid from pg_catalog.pg_roles as r where r.rolname = current_user)
        and not (granted.privilege_type = 'SELECT' and granted.grantee in (
          select r.oid from pg_catalog.pg_roles as r where r.rolname in (
            {%- for reader in readers -%}'{{ reader | replace("'", "''") }}'{% if not loop.last %}, {% endif %}
            {%- endfor -%}
            {%- if not readers -%}null{%- endif -%})))
    )
    select a.nspname, a.relname, a.relkind, f.grantee, f.privilege_type
    from audit as a
    left join foreign_grants as f on a.oid = f.oid
    order by a.nspname, a.relname, f.grantee, f.privilege_type
  {%- endset -%}
  {%- set found = {} -%}
  {%- set grants = [] -%}
  {%- for row in run_query(sql).rows -%}
    {%- do found.update({(row[0], row[1]): row[2]}) -%}
    {%- if row[3] is not none -%}{%- do grants.append((row[0], row[1], row[3], row[4])) -%}{%- endif -%}
  {%- endfor -%}
  {%- set state = {'missing': [], 'views': [], 'not_tables': [], 'foreign': []} -%}
  {%- for relation in relations -%}
    {%- set kind = found.get((relation.schema, relation.identifier)) -%}
    {%- if kind is none -%}
      {%- do state.missing.append(relation) -%}
    {%- elif kind == 'v' -%}
      {%- do state.views.append(relation) -%}
    {%- elif kind not in ['r', 'p'] -%}
      {%- do state.not_tables.append(relation) -%}
    {%- endif -%}
    {%- for schema, name, grantee, privilege in grants if schema == relation.schema and name == relation.identifier -%}
      {%- do state.foreign.append((relation, grantee, privilege)) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(state) }}
{% endmacro %}

{#- Spark has no information_schema: the metastore's own listing of the trail's schema (`show
    tables` lists views too, `show views` says which), read afresh, not from dbt's relation
    cache, which does not see what _build_audit_trail just created. Spark SQL's
    own catalog has no roles or grants: nothing is foreign. -#}
{% macro spark___audit_trail_state(relations) %}
  {%- set listed = {} -%}
  {%- for relation in relations -%}
    {%- set schema = relation.without_identifier() -%}
    {%- if (schema | string) not in listed -%}
      {%- set kinds = {} -%}
      {%- if run_query("show schemas like '" ~ (schema.schema | replace("'", "\\'")) ~ "'").rows -%}
        {%- for row in run_query('show tables in ' ~ schema).rows if not row[2] -%}
          {%- do kinds.update({row[1] | lower: 'table'}) -%}
        {%- endfor -%}
        {%- for row in run_query('show views in ' ~ schema).rows -%}
          {%- do kinds.update({row[1] | lower: 'view'}) -%}
        {%- endfor -%}
      {%- endif -%}
      {%- do listed.update({schema | string: kinds}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set state = {'missing': [], 'views': [], 'not_tables': [], 'foreign': []} -%}
  {%- for relation in relations -%}
    {%- set kind = listed[relation.without_identifier() | string].get(relation.identifier | lower) -%}
    {%- if kind is none -%}
      {%- do state.missing.append(relation) -%}
    {%- elif kind == 'view' -%}
      {%- do state.views.append(relation) -%}
    {%- elif kind != 'table' -%}
      {%- do state.not_tables.append(relation) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(state) }}
{% endmacro %}
