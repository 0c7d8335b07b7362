"""Resource provider summaries: each provider's inventories and trait ids
as the texts allocation candidates answer with, kept in
resource_provider_summaries by database triggers (migration 0021).

computed_columns() builds the same texts from the rows, as the candidates
query did before the triggers: the invariant that mismatches() checks.
"""

import sqlalchemy as sa

from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.models import placement as models
from blazar_ext.query import json_text

RP = models.ResourceProvider
INV = models.Inventory
RPT = models.ResourceProviderTrait
SUMMARY = models.ResourceProviderSummary


def stored_columns(provider_id) -> tuple:
    """The stored inventory text and trait ids text of ``provider_id``
    (a column), each a primary key probe."""
    return tuple(
        sa.select(column).where(SUMMARY.resource_provider_id == provider_id)
        .scalar_subquery()
        for column in (SUMMARY.inventories, SUMMARY.traits))


def computed_columns(provider_id) -> tuple:
    """A provider's inventories ('class id:capacity:used', ...) and trait
    ids ('id,...') as text computed from its rows, in no set order:
    capacity is (total - reserved) x allocation_ratio truncated toward
    zero, used the sum of its allocations of the class."""
    inv = sa.orm.aliased(INV)
    entry = (sa.cast(inv.resource_class_id, sa.String) + ':'
             + sa.cast(json_text.truncated(
                 (inv.total - inv.reserved) * inv.allocation_ratio),
                 sa.String) + ':'
             + sa.cast(inv_api.used_expression(inv.resource_provider_id,
                                               inv.resource_class_id),
                       sa.String))
    return (sa.select(json_text.joined(entry))
            .where(inv.resource_provider_id == provider_id)
            .scalar_subquery(),
            sa.select(json_text.joined(RPT.trait_id))
            .where(RPT.resource_provider_id == provider_id)
            .scalar_subquery())


def computed_select() -> sa.Select:
    """(provider id, inventory text, trait ids text) of every provider,
    computed from its rows."""
    return sa.select(RP.id, *computed_columns(RP.id)).order_by(RP.id)


def stored_select() -> sa.Select:
    """(provider id, inventory text, trait ids text) of every provider as
    stored; NULLs where a provider has no summary row."""
    return sa.select(RP.id, *stored_columns(RP.id)).order_by(RP.id)


def _canonical(text: str | None):
    return None if text is None else sorted(text.split(','))


def mismatches(conn) -> list:
    """[(provider id, stored (inventories, traits), computed ...)] of the
    providers whose stored summary differs from the one computed from
    their rows (entries compared in sorted order), plus summary rows of
    no provider: [] when the triggers did their work."""
    stored = {pid: tuple(map(_canonical, texts))
              for pid, *texts in conn.execute(stored_select())}
    computed = {pid: tuple(map(_canonical, texts))
                for pid, *texts in conn.execute(computed_select())}
    wrong = [(pid, stored[pid], computed[pid]) for pid in computed
             if stored[pid] != computed[pid]]
    orphans = conn.execute(sa.select(SUMMARY.resource_provider_id).where(
        SUMMARY.resource_provider_id.not_in(sa.select(RP.id)))).scalars()
    return wrong + [(pid, 'no provider', None) for pid in orphans]
