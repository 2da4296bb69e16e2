"""kanon installed in a host project (packages.yml), by pip, and on the other dbt versions it supports."""
