"""Models of the matches app (filled in by its owner)."""
