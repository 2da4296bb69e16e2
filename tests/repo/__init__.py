"""Checks on the repository itself: the docs and their links, the macros' lint, what users read."""
