"""Outbound HTTP adapters."""
