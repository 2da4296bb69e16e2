{#- Warnings about a release that will be published: nothing at all (consented to by
    allow_empty_input or allow_empty_output, check output_empty), events without a person,
    values missing from a hierarchy. -#}
{% macro _warn_release_facts(facts, staging, kind) %}
  {%- set long_form = kind.long_form -%}
  {#- the gate let it through: the input was empty (allow_empty_input) or allow_empty_output -#}
  {%- if kanon._release_shows_nothing(kind, facts) -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ " publishes nothing"
        ~ (" (" ~ facts.cells_suppressed ~ " of " ~ facts.cells_in ~ " cell(s) suppressed or hidden at k=" ~ config.get('k') ~ ")"
           if facts.input_rows != 0 else ": it read no input rows")
        ~ "; the previous release is replaced by an empty one, as config "
        ~ ("allow_empty_output" if facts.input_rows != 0 else "allow_empty_input") ~ "=true allows.") -%}
  {%- endif -%}
  {%- if long_form and facts.events_null_unit > 0 -%}
    {%- do kanon._null_unit_found(kanon._who(kind.called), facts.null_unit, facts.events_null_unit, facts.privacy_unit) -%}
  {%- endif -%}
  {%- if 'missing_values' in kind.facts -%}
    {%- do kanon._warn_missing_labels(staging) -%}
  {%- endif -%}
  {%- if facts.rows_changed_small -%}
    {%- set counts = facts.rows_held is not none -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": " ~ facts.rows_changed_small ~ " of " ~ facts.rows_compared
        ~ (" row(s)" if counts or not facts.records_in else " class(es) of records") ~ " published before changed by 1 to "
        ~ (config.get('k') - 1) ~ (" people" if counts else "") ~ " since the previous release: a reader comparing the two"
        ~ " releases counts those people (a differencing risk). " ~ (facts.rows_held ~ " row(s) are held at their previous value."
        if facts.rows_held else ("Release with on_small_change='hold' to hold such rows until the change reaches k." if counts
        else "Release less often, or with on_small_change='refuse' to keep the previous release until such changes are gone."))) -%}
  {%- endif -%}
  {%- if facts.key_fingerprint and facts.previous_key_fingerprint and facts.key_fingerprint != facts.previous_key_fingerprint -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": the pseudonym key changed since the previous release (key fingerprint "
        ~ facts.key_fingerprint ~ ", was " ~ facts.previous_key_fingerprint ~ "): every pseudonym differs from the previous"
        ~ " release's, so its records cannot be linked with this one's. Release with the previous key if that was not intended.") -%}
  {%- endif -%}
{% endmacro %}

{#- Warns for every dimension whose values the release found missing from its hierarchy (they
    were released only at its root); counted by the release as its 'missing_values' facts. -#}
{% macro _warn_missing_labels(staging) %}
  {%- set found = run_query("select _kanon_text, _kanon_value from " ~ staging
      ~ " where " ~ kanon._long_form_is_fact('missing_values') ~ " and _kanon_value > 0 order by _kanon_text") -%}
  {%- for dimension, values in found.rows -%}
    {%- do exceptions.warn(
        "kanon: " ~ model.unique_id ~ ": " ~ values ~ " distinct value(s) of '" ~ dimension
        ~ "' are missing from its hierarchy; they are released only at its root. "
        ~ "Add them to the hierarchy seed (the kanon.hierarchy_covers test lists them).") -%}
  {%- endfor -%}
{% endmacro %}
