"""Shared helpers for the test suite (real components, started the way users start them)."""
