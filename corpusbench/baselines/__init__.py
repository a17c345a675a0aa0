"""Shallow baselines trained on the benchmark's own corpus: n-gram word/tag models and linear rules."""
