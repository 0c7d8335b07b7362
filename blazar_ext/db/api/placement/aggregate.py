"""Aggregates of providers, and member_of as SQL."""

import sqlalchemy as sa

from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api import retry
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session

AGG = models.PlacementAggregate
RPA = models.ResourceProviderAggregate


def _member_of_any(provider_id, uuids) -> sa.ColumnElement:
    return sa.exists().where(
        RPA.resource_provider_id == provider_id,
        RPA.aggregate_id.in_(sa.select(AGG.id).where(
            AGG.uuid.in_(sorted(uuids)))))


def member_of_filter(groups, forbidden, provider_id) -> list:
    """WHERE clauses: in one of each group, in none of ``forbidden``."""
    clauses = [_member_of_any(provider_id, group) for group in groups]
    if forbidden:
        clauses.append(~_member_of_any(provider_id, forbidden))
    return clauses


def aggregates_of(session, provider_id: int) -> list:
    return sorted(session.scalars(
        sa.select(AGG.uuid).join(RPA, RPA.aggregate_id == AGG.id)
        .where(RPA.resource_provider_id == provider_id)))


def get_aggregates(context, uuid: str) -> dict:
    with db_session.reader.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        return {'aggregates': aggregates_of(session, provider.id),
                'resource_provider_generation': provider.generation}


@retry.on_deadlock
def set_aggregates(context, uuid: str, aggregates, generation=None) -> dict:
    """Replace the provider's aggregates; checks and bumps the generation
    when ``generation`` is given (1.19 and later). The answer lists them
    in the order given, as Placement echoes the request."""
    with db_session.writer.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        given = list(dict.fromkeys(aggregates))
        wanted = sorted(given)
        known = dict(session.execute(sa.select(AGG.uuid, AGG.id).where(
            AGG.uuid.in_(wanted))).all()) if wanted else {}
        for agg_uuid in wanted:
            if agg_uuid not in known:
                agg = AGG(uuid=agg_uuid)
                session.add(agg)
                session.flush()
                known[agg_uuid] = agg.id
        provider_base.increment_generation(
            session, provider,
            provider.generation if generation is None else generation,
            'aggregates')
        session.execute(sa.delete(RPA).where(
            RPA.resource_provider_id == provider.id))
        if wanted:
            session.execute(sa.insert(RPA), [
                {'resource_provider_id': provider.id,
                 'aggregate_id': known[a]} for a in wanted])
        return {'aggregates': given,
                'resource_provider_generation': provider.generation}
