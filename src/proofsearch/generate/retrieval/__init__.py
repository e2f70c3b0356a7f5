"""Premise retrieval over a trace's premises, and what uses it: tactic templates that
name the retrieved premises, and retrieval-augmented prompts for model generators."""
