"""Tables with totals, kanon.release_table (macros/table), and the attacker's LP audit of what they publish."""
