"""Pure, I/O-free text matching: normalization, scoring, ranking, snippets, relaxation."""
