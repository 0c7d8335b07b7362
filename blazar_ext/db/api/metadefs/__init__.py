"""Glance-compatible metadata definitions: the catalog's queries."""
