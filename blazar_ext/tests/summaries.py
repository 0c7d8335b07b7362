"""The invariant of resource_provider_summaries: what the database
triggers (migration 0021) stored is what the providers' rows make."""

from blazar_ext.db.api.placement import provider_summary


class SummariesStale(AssertionError):
    """Some provider's stored summary is not what its rows make."""


def assert_kept(engine) -> None:
    """Raise SummariesStale unless every provider's stored summary texts
    equal those computed from its inventories, allocations and traits."""
    with engine.connect() as conn:
        wrong = provider_summary.mismatches(conn)
    if wrong:
        raise SummariesStale(
            '%d provider summaries differ from their rows (id, stored, '
            'computed): %r' % (len(wrong), wrong[:10]))
