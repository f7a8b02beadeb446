"""The index engine: how a tenant's records are stored and searched."""
