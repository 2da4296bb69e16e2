{#- Warnings about a release that will be published: nothing at all (consented to by
    allow_empty_input or allow_empty_output, check output_empty), events without a person,
    values missing from a hierarchy, rows changed by less than k since the previous release, a
    key that changed (in the kind's words, _release_kind_wording); then the kind's own warnings
    (_warn_release_own). -#}
{% macro _warn_release_facts(facts, staging, kind) %}
  {%- set long_form = kind.long_form -%}
  {#- the gate let it through: the input was empty (allow_empty_input) or allow_empty_output -#}
  {%- if kanon._release_shows_nothing(kind, facts) -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ " publishes nothing"
        ~ (" (" ~ facts.cells_suppressed ~ " of " ~ facts.cells_in ~ " cell(s) suppressed or hidden at k="
           ~ config.get('k') ~ ")" if facts.input_rows != 0 else ": it read no input rows")
        ~ "; the previous release is replaced by an empty one, as config "
        ~ ("allow_empty_output" if facts.input_rows != 0 else "allow_empty_input") ~ "=true allows.") -%}
  {%- endif -%}
  {%- if long_form and facts.events_null_unit > 0 -%}
    {%- do kanon._null_unit_found(kanon._who(kind.called), facts.null_unit, facts.events_null_unit,
                                  facts.privacy_unit) -%}
  {%- endif -%}
  {%- if 'missing_values' in kind.facts -%}
    {%- do kanon._warn_missing_labels(staging) -%}
  {%- endif -%}
  {%- set says = kanon._release_kind_wording(kind) -%}
  {%- if facts.rows_changed_small -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": " ~ facts.rows_changed_small ~ " of " ~ facts.rows_compared
        ~ " " ~ says.rows ~ " published before changed by 1 to " ~ (config.get('k') - 1)
        ~ (" " ~ says.changed_by if says.changed_by else "")
        ~ " since the previous release: a reader comparing the two releases counts those people (a differencing risk). "
        ~ (facts.rows_held ~ " row(s) are held at their previous value." if facts.rows_held
           else says.small_change_advice)) -%}
  {%- endif -%}
  {%- if facts.key_fingerprint and facts.previous_key_fingerprint
        and facts.key_fingerprint != facts.previous_key_fingerprint -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": the " ~ says.key
        ~ " changed since the previous release (key fingerprint " ~ facts.key_fingerprint
        ~ ", was " ~ facts.previous_key_fingerprint ~ "): " ~ says.key_changed
        ~ ". Release with the previous key if that was not intended.") -%}
  {%- endif -%}
  {%- do kanon._warn_release_own(kind, facts, staging) -%}
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

{#- The warnings a kind names in its descriptor (`warnings`), in order: each the macro
    _gate_warning__<name>(gate), found by name as the gate's checks are, returning a message or
    a list of them ('' or [] for none), each warned as "kanon: <model>: <message>". -#}
{% macro _warn_release_own(kind, facts, staging) %}
  {%- for name in kind.get('warnings') or [] -%}
    {%- set warning = kanon.get('_gate_warning__' ~ name) -%}
    {%- if warning is none -%}
      {{ exceptions.raise_compiler_error("kanon: release kind '" ~ kind.name ~ "' names a warning '" ~ name
          ~ "' but kanon has no macro _gate_warning__" ~ name) }}
    {%- endif -%}
    {%- set said = warning({'kind': kind, 'facts': facts, 'staging': staging, 'k': config.get('k'),
        'count_column': facts.count_column}) -%}
    {%- for message in ([said] if said is string else said) if message -%}
      {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": " ~ message) -%}
    {%- endfor -%}
  {%- endfor -%}
{% endmacro %}
