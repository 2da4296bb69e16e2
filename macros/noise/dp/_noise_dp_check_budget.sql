{#-
  The privacy budget, before a dp release runs: what the source's released dp releases spent,
  read from the ledger (the columns budget_source, budget_unit, epsilon_spent, rho_spent,
  delta_spent of kanon_audit_releases, append-only and private like the rest of the trail), plus
  this release, must stay within the budget the release declares. Refused otherwise, saying what
  was spent and what is left: nothing runs, the previous release stays. A release refused later,
  at its gate, published nothing and spends nothing (its row is not RELEASED).
  A trail without the ledger's columns (none added yet: no dp release ever ran) has spent nothing.
  Releases of one source must run one after the other (dbt's threads could start two before
  either is recorded): docs/reference/noise.md says so.
-#}
{% macro _noise_dp_check_budget(noise, who) %}
  {%- set releases = kanon._audit_relation('kanon_audit_releases') -%}
  {%- set existing = adapter.get_relation(database=releases.database, schema=releases.schema,
                                          identifier=releases.identifier) -%}
  {%- set spent = {'epsilon': 0, 'rho': 0, 'delta': 0, 'releases': 0} -%}
  {%- set columns = adapter.get_columns_in_relation(existing) | map(attribute='name') | map('lower') | list
      if existing is not none else [] -%}
  {%- if 'epsilon_spent' in columns -%}
    {%- set row = run_query("select coalesce(sum(epsilon_spent), 0), coalesce(sum(rho_spent), 0),"
        ~ " coalesce(sum(delta_spent), 0), count(*) from " ~ existing ~ " where status = 'RELEASED'"
        ~ " and budget_source = " ~ kanon._sql_text(noise.budget_source)
        ~ " and budget_unit = " ~ kanon._sql_text(noise.budget_unit)).rows[0] -%}
    {%- do spent.update({'epsilon': row[0] | float, 'rho': row[1] | float, 'delta': row[2] | float,
                         'releases': row[3] | int}) -%}
  {%- endif -%}
  {%- set other = 'rho' if noise.spends == 'epsilon' else 'epsilon' -%}
  {%- set ledger = "the ledger of " ~ noise.budget_source ~ " (people: " ~ noise.budget_unit ~ ")" -%}
  {%- if spent[other] > 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ ledger ~ " holds releases that spent " ~ other ~ "; a "
        ~ noise.mechanism ~ " release spends " ~ noise.spends ~ ", and kanon does not convert one into the other."
        ~ " Give it a budget_source of its own") }}
  {%- endif -%}
  {%- set total = noise.budget[noise.spends] -%}
  {%- set after = spent[noise.spends] + noise.amount -%}
  {%- set after_delta = spent.delta + noise.delta -%}
  {%- if after > total * (1 + 1e-9) or after_delta > noise.budget.delta * (1 + 1e-9) -%}
    {{ exceptions.raise_compiler_error(who ~ ": privacy budget exhausted: " ~ ledger ~ " has spent " ~ noise.spends
        ~ " " ~ spent[noise.spends] ~ " and delta " ~ spent.delta ~ " in " ~ spent.releases ~ " release(s),"
        ~ " of a budget of " ~ total ~ " and " ~ noise.budget.delta ~ "; this release would spend " ~ noise.amount
        ~ " and " ~ noise.delta ~ ". Nothing was released; the previous release stays") }}
  {%- endif -%}
  {%- do noise.update({'spent_before': {noise.spends: spent[noise.spends], 'delta': spent.delta,
                                         'releases': spent.releases}}) -%}
{% endmacro %}
