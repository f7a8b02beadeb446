"""opindex: typo-tolerant, ranked search over OpenProject for LLM clients."""

__version__ = "0.1.0"
