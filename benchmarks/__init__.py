"""Benchmarks (``make bench``): ratios against named baselines, measured in one run."""
