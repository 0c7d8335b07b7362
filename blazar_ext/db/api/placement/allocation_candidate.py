"""Allocation candidates: providers that can satisfy a request, found by
one SQL query (capacity, traits, aggregates, tree), then summarised."""

import sqlalchemy as sa

from blazar_ext.db.api.placement import aggregate as agg_api
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session

RP = models.ResourceProvider
INV = models.Inventory


def candidate_query(session, resources: dict, required=None,
                    member_of=(), forbidden_aggregates=(), in_tree=None,
                    root_required=None, limit=None) -> sa.Select:
    """SELECT providers that alone satisfy ``resources`` and the filters.

    One inventory join per requested class; usage is a correlated SUM on
    the (provider, class) index, so the database does all the work.
    """
    query = sa.select(RP.id).order_by(RP.id)
    for class_id, amount in rp_api.resource_amounts(session, resources):
        inv = sa.orm.aliased(INV)
        query = query.join(inv, sa.and_(inv.resource_provider_id == RP.id,
                                        inv.resource_class_id == class_id))
        query = query.where(*inv_api.fits(inv, amount))
    if required:
        query = query.where(*trait_api.provider_filter(required, RP.id))
    if root_required:
        query = query.where(*trait_api.provider_filter(
            root_required, RP.root_provider_id))
    query = query.where(*agg_api.member_of_filter(
        member_of, forbidden_aggregates, RP.id))
    if in_tree is not None:
        query = query.where(RP.root_provider_id ==
                            rp_api.root_id_of(in_tree))
    if limit is not None:
        query = query.limit(limit)
    return query


def get_candidates(context, resources: dict, required=None, member_of=(),
                   forbidden_aggregates=(), in_tree=None,
                   root_required=None, limit=None) -> dict:
    """{'candidates': [provider uuid], 'summaries': {uuid: summary}}.

    A summary has 'resources' ({class: {capacity, used}} for every class
    the provider has), 'traits', 'parent_provider_uuid' and
    'root_provider_uuid'. Two queries in all, each joining the candidate
    query as a subquery, whatever the number of candidates.
    """
    with db_session.reader.using(context) as session:
        names = set()
        for requirement in (required, root_required):
            if requirement:
                names |= requirement.names
        trait_api.check_exist(session, names)
        if in_tree is not None and session.scalar(
                sa.select(RP.id).where(RP.uuid == in_tree)) is None:
            return {'candidates': [], 'summaries': {}}
        cand = candidate_query(
            session, resources, required, member_of, forbidden_aggregates,
            in_tree, root_required, limit).subquery()
        parent = sa.orm.aliased(RP)
        root = sa.orm.aliased(RP)
        inv = sa.orm.aliased(INV)
        conn = session.connection()
        rows = conn.execute(
            sa.select(cand.c.id, RP.uuid, parent.uuid, root.uuid,
                      models.ResourceClass.name,
                      *[getattr(inv, f) for f in inv_api.FIELDS],
                      inv_api.used_expression(inv.resource_provider_id,
                                              inv.resource_class_id))
            .join(RP, RP.id == cand.c.id)
            .outerjoin(parent, parent.id == RP.parent_provider_id)
            .outerjoin(root, root.id == RP.root_provider_id)
            .join(inv, inv.resource_provider_id == cand.c.id)
            .join(models.ResourceClass,
                  models.ResourceClass.id == inv.resource_class_id)
            .order_by(cand.c.id))
        candidates, summaries, by_id = [], {}, {}
        nfields = len(inv_api.FIELDS)
        for row in rows:
            pid, uuid, parent_uuid, root_uuid, rc_name = row[:5]
            summary = by_id.get(pid)
            if summary is None:
                candidates.append(uuid)
                summary = by_id[pid] = summaries[uuid] = {
                    'resources': {}, 'traits': [],
                    'parent_provider_uuid': parent_uuid,
                    'root_provider_uuid': root_uuid or uuid}
            values = dict(zip(inv_api.FIELDS, row[5:5 + nfields]))
            summary['resources'][rc_name] = {
                'capacity': inv_api.capacity(values),
                'used': int(row[5 + nfields])}
        traits = conn.execute(
            sa.select(cand.c.id, models.Trait.name)
            .join(models.ResourceProviderTrait,
                  models.ResourceProviderTrait.resource_provider_id ==
                  cand.c.id)
            .join(models.Trait,
                  models.Trait.id == models.ResourceProviderTrait.trait_id)
            .order_by(models.Trait.name))
        for pid, name in traits:
            if pid in by_id:
                by_id[pid]['traits'].append(name)
        return {'candidates': candidates, 'summaries': summaries}
