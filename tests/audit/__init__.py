"""The audit trail: every decision of every release, and each cell's fate replayed from it (macros/audit)."""
