"""Search: the query language, the index and ranking, highlighting and the on-disk cache."""
