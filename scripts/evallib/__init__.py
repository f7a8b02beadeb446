"""Evaluation library for opindex's benchmark scripts, kept apart from the core package."""
