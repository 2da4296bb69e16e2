{#- A release the gate refused (failed: (check, reason)): drops the staging table, records a
    REFUSED release naming the check and commits it, then fails the run. Nothing was published:
    the previous release stays as it is. -#}
{% macro _refuse_release(staging, audit_releases, release, failed, target) %}
  {%- do kanon._drop_staging(staging) -%}
  {%- do kanon._audit_write_bound(kanon._audit_insert_refused(audit_releases, release, failed[0], failed[1]),
      [release.get('release_plan')]) -%}
  {%- do adapter.commit() -%}
  {{ exceptions.raise_compiler_error(
      "kanon: refused to publish " ~ model.unique_id ~ " (check " ~ failed[0] ~ "): " ~ failed[1]
      ~ ". Nothing was published; the previous release of " ~ target ~ " is unchanged.") }}
{% endmacro %}
