"""Usages per provider and per project or user."""

import sqlalchemy as sa

from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session

ALLOC = models.Allocation
CONSUMER = models.Consumer
RC = models.ResourceClass


def provider_usages(context, uuid: str) -> dict:
    """Usage of every class the provider has inventory of (0 if unused)."""
    with db_session.reader.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        usages = {name: 0 for name in inv_api.inventories_of(
            session, [provider.id])[provider.id]}
        usages.update(inv_api.usages_of(session, [provider.id])[provider.id])
        return {'usages': usages,
                'resource_provider_generation': provider.generation}


def project_usages(context, project_id: str, user_id: str | None = None,
                   consumer_type: str | None = None) -> dict:
    """{consumer type: {'consumer_count': n, class: used}}.

    ``consumer_type`` 'all' puts every consumer under one key, 'all';
    'unknown' names the consumers without a type; any other value keeps
    that type only. A consumer counts once however many classes it uses.
    """
    with db_session.reader.using(context) as session:
        ctype = sa.func.coalesce(CONSUMER.consumer_type, 'unknown')
        # 'all' is one group: no type column (a constant in GROUP BY is
        # an error on PostgreSQL).
        keys = [] if consumer_type == 'all' else [ctype]
        query = (sa.select(*keys, RC.name, sa.func.sum(ALLOC.used))
                 .select_from(CONSUMER)
                 .join(ALLOC, ALLOC.consumer_id == CONSUMER.uuid)
                 .join(RC, RC.id == ALLOC.resource_class_id)
                 .where(CONSUMER.project_id == project_id)
                 .group_by(*keys, RC.name))
        counts = (sa.select(*keys,
                            sa.func.count(sa.distinct(CONSUMER.id)))
                  .select_from(CONSUMER)
                  .join(ALLOC, ALLOC.consumer_id == CONSUMER.uuid)
                  .where(CONSUMER.project_id == project_id))
        if keys:
            counts = counts.group_by(*keys)
        if user_id is not None:
            query = query.where(CONSUMER.user_id == user_id)
            counts = counts.where(CONSUMER.user_id == user_id)
        if consumer_type not in (None, 'all'):
            query = query.where(ctype == consumer_type)
            counts = counts.where(ctype == consumer_type)
        result = {}
        for row in session.execute(counts):
            if row[-1]:
                result[row[0] if keys else 'all'] = {
                    'consumer_count': row[-1]}
        for row in session.execute(query):
            key = row[0] if keys else 'all'
            result.setdefault(key, {'consumer_count': 0})[row[-2]] = (
                int(row[-1]))
        return result
