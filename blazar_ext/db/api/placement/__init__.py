"""Placement-compatible inventory, one module per resource.

Reusable filters for other modules (e.g. host reservations):
``trait.provider_filter(requirement, provider_id)`` and
``trait.select_provider_ids(requirement)`` turn a parsed trait requirement
(blazar_ext.query.traits) into SQLAlchemy expressions.
"""
