"""Count releases, kanon.release_counts (macros/counts): the engine, its gate, hostile input,
releases over time, the oracle."""
