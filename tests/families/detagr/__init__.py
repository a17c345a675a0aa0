"""A test-only benchmark family (determiner-noun agreement pairs) that plugs into corpusbench through
its entry point only: see docs/extending.md and tests/test_fifth_family.py."""
