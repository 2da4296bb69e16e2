"""kanon's generic dbt tests (macros/generic_tests): hierarchies, the privacy unit, perturbation tables."""
