"""Corpus readers, tokenisation and tagging, statistics and frequency bins."""
