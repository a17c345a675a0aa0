"""Benchmark generators: LT-Swap, FIT-CLAMS and CAC."""
