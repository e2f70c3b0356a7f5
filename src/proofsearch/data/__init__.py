"""Theorem files, results files and reports: the user-facing data formats."""
