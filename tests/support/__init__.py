"""Test support shared by tests and benchmarks (not shipped in the package)."""
