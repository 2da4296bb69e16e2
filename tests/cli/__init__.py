"""What kanon_tools' commands read through dbt: the audit commands, the trail's readers, the
reviewers' page (macros/cli)."""
