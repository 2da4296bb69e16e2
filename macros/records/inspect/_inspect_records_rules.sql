{#- The thresholds and name lists kanon.kanon_inspect_records suggests roles by, in one place (they
    are emitted with its answer, so a reader of the JSON sees what the suggestions rest on). A
    column name is split into words (camelCase and any non-alphanumeric character split), and a
    name rule applies when one of its words is in the list. -#}
{% macro _inspect_records_rules() %}
  {{ return({
      'unique_share': 0.95,
      'unique_min_rows': 20,
      'low_cardinality_distinct': 50,
      'low_cardinality_share': 0.05,
      'free_text_length': 30,
      'free_text_uniqueness': 0.5,
      'identifier_words': ['id', 'uuid', 'guid', 'ssn', 'passport', 'name', 'firstname', 'lastname', 'surname',
                           'fullname', 'username', 'login', 'email', 'mail', 'phone', 'mobile', 'telephone', 'tel',
                           'fax', 'address', 'street', 'iban'],
      'date_words': ['date', 'dob', 'birth', 'birthday', 'birthdate', 'born', 'time', 'timestamp'],
      'age_words': ['age'],
      'postal_words': ['zip', 'zipcode', 'postal', 'postcode', 'plz'],
  }) }}
{% endmacro %}
