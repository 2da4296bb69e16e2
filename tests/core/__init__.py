"""What every release kind shares (macros/core, macros/materializations): the kinds, the last good
release, previews, the flagship example."""
