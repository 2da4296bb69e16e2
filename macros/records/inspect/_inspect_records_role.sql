{#- The role kanon.kanon_inspect_records suggests for one column, with its reason, from the
    column's name, type and aggregates (never a value): {'role': ..., 'reason': ...}. The first
    rule that applies wins; _inspect_records_rules holds the thresholds and word lists.

      no rows / no values                  keep              nothing to judge
      a word of its name like id, name,    identifier        drop it, or pseudonymize it
        email, phone (identifier_words)
      a date or time type                  quasi_identifier  generalize it (date), even when
                                                             unique: a timestamp is not a key
      a word like date, birth, age, zip,   quasi_identifier  generalize it
        postal (date/age/postal_words)
      uniqueness >= 0.95 over >= 20        identifier        nearly every value is one record's
        non-null rows
      text averaging >= 30 characters with keep              free text: review it by hand
        uniqueness >= 0.5
      <= 50 distinct values, or distinct   quasi_identifier  generalize it (or make it sensitive)
        <= 5 % of the rows
      other text (many distinct values)    keep              review it by hand
      other numbers (many distinct values) quasi_identifier  an exact measurement: bin it
      anything else                        keep
-#}
{% macro _inspect_records_role(name, kind, rows, non_null, distinct, avg_length) %}
  {%- set rules = kanon._inspect_records_rules() -%}
  {%- set words = modules.re.split('[^a-z0-9]+', modules.re.sub('([a-z0-9])([A-Z])', '\\1_\\2', name) | lower) -%}
  {%- set ns = namespace(word=none) -%}
  {%- set uniqueness = (distinct / non_null) if non_null > 0 else none -%}
  {%- set counted = distinct ~ " distinct of " ~ non_null ~ " non-null rows" -%}
  {%- if rows == 0 -%}
    {{ return({'role': 'keep',
               'reason': 'the relation has no rows: nothing to judge; inspect it again once it holds data'}) }}
  {%- elif non_null == 0 -%}
    {{ return({'role': 'keep',
               'reason': 'every value is NULL: it holds nothing about anyone; drop it if it stays empty'}) }}
  {%- endif -%}
  {%- for word in words if ns.word is none and word in rules.identifier_words -%}
    {%- set ns.word = word -%}
  {%- endfor -%}
  {%- if ns.word is not none -%}
    {{ return({'role': 'identifier', 'reason': "its name says '" ~ ns.word
        ~ "': it names or points at a person; drop it, or pseudonymize it if rows must stay linkable"}) }}
  {%- endif -%}
  {%- if kind == 'date' -%}
    {{ return({'role': 'quasi_identifier',
               'reason': "a date or time: with others it can single a person out; generalize it (generalizer date)"}) }}
  {%- endif -%}
  {%- for word in words if ns.word is none and word in (rules.date_words + rules.age_words + rules.postal_words) -%}
    {%- set ns.word = word -%}
  {%- endfor -%}
  {%- if ns.word is not none -%}
    {%- set what = 'a date' if ns.word in rules.date_words
        else ('an age' if ns.word in rules.age_words else 'a postal code') -%}
    {{ return({'role': 'quasi_identifier', 'reason': "its name says '" ~ ns.word ~ "' (" ~ what
        ~ "): with others it can single a person out; generalize it (hierarchy, bins or date)"}) }}
  {%- endif -%}
  {%- if uniqueness >= rules.unique_share and non_null >= rules.unique_min_rows -%}
    {{ return({'role': 'identifier', 'reason': "unique-like: " ~ counted ~ " (uniqueness " ~ (uniqueness | round(3))
        ~ " >= " ~ rules.unique_share
        ~ "): a value points at one record; drop it, or pseudonymize it if rows must stay linkable"}) }}
  {%- endif -%}
  {%- if kind == 'text' and avg_length is not none and avg_length >= rules.free_text_length
        and uniqueness >= rules.free_text_uniqueness -%}
    {{ return({'role': 'keep', 'reason': "free text (" ~ (avg_length | round(1)) ~ " characters on average, " ~ counted
        ~ "): review it by hand, free text can name people;"
        ~ " drop it, or make it sensitive if the extract is about it"}) }}
  {%- endif -%}
  {%- if distinct <= rules.low_cardinality_distinct or distinct <= rules.low_cardinality_share * rows -%}
    {{ return({'role': 'quasi_identifier', 'reason': "low cardinality: " ~ counted ~ " (<= "
        ~ rules.low_cardinality_distinct ~ ", or <= " ~ (100 * rules.low_cardinality_share) | int
        ~ " % of the rows): generalize it if an outsider can know it,"
        ~ " or make it sensitive if it is what the extract is about"}) }}
  {%- endif -%}
  {%- if kind == 'text' -%}
    {{ return({'role': 'keep', 'reason': "many distinct texts, not unique: " ~ counted
        ~ "; review it by hand, it may name people"}) }}
  {%- elif kind == 'number' -%}
    {{ return({'role': 'quasi_identifier', 'reason': "many distinct numbers: " ~ counted
        ~ "; an exact measurement can single a person out: bin it (generalizer bins),"
        ~ " or make it sensitive if it is what the extract is about"}) }}
  {%- endif -%}
  {{ return({'role': 'keep', 'reason': counted ~ ": nothing suggests it singles a person out"}) }}
{% endmacro %}
