"""Allocation candidates: providers that can satisfy a request, found by
one SQL query (capacity, traits, aggregates, tree) that also brings each
one's summary (inventories with their usage, trait ids) as text the
database joins."""

import dataclasses
import functools
import itertools

import sqlalchemy as sa

from blazar_ext.db.api.placement import aggregate as agg_api
from blazar_ext.db.api.placement import candidate_trees
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db import driver_read
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session

RP = models.ResourceProvider
INV = models.Inventory
RC = models.ResourceClass
RPT = models.ResourceProviderTrait
SUMMARY = models.ResourceProviderSummary
TRAIT = models.Trait
# Tree roots per IN list (ids are written into the SQL text: see
# provider_base.ids_in).
_IN_CHUNK = 10000
_CLASS_NAMES = sa.select(RC.id, RC.name)
# Every class, each row with whether the data has trees (an uncorrelated
# subquery: run once). An integer to the driver, not a
# Boolean that SQLAlchemy converts on every row.
_CLASSES_AND_TREES = _CLASS_NAMES.add_columns(sa.type_coerce(
    candidate_trees.USES_TREES.scalar_subquery(), sa.Integer))


@dataclasses.dataclass
class FlatCandidates:
    """Providers that alone satisfy a request, as columns, in id order.

    ``resources`` ({class: {'capacity', 'used'}} for every class the
    provider has) and ``traits`` (names, in trait id order) of providers
    that look alike are one shared object: treat them as read-only.
    """

    uuids: list
    parents: list
    roots: list
    resources: list
    traits: list

    def summaries(self) -> dict:
        """summaries_by_uuid() of these providers."""
        return summaries_by_uuid(zip(self.uuids, self.resources,
                                     self.traits, self.parents, self.roots))


def summaries_by_uuid(summaries) -> dict:
    """{uuid: {'resources', 'traits', 'parent_provider_uuid',
    'root_provider_uuid'}} of (uuid, resources, traits, parent uuid, root
    uuid) summaries, as the dict documents before 1.27 want them."""
    return {uuid: {'resources': resources, 'traits': traits,
                   'parent_provider_uuid': parent,
                   'root_provider_uuid': root}
            for uuid, resources, traits, parent, root in summaries}


def candidate_query(class_ids: dict, resources: dict, required=None,
                    member_of=(), forbidden_aggregates=(), in_tree=None,
                    root_required=None, limit=None) -> sa.Select:
    """SELECT providers that alone satisfy ``resources`` and the filters.

    Everything is a test on the provider row, in provider id order, so
    a limit stops the scan early; a required trait's rows lead
    (trait_api.narrowed). The cheap index probes (tree, traits,
    aggregates) come before capacity (an inventory probe and a
    correlated SUM of usage), as SQLite tests them in the order written.
    ``class_ids``: {name: id} of every class (class_names()).
    """
    amounts = tuple(rp_api.amounts_by_id(resources, class_ids))
    return _candidate_select(
        amounts, required or None, root_required or None,
        tuple(frozenset(group) for group in member_of),
        frozenset(forbidden_aggregates or ()), in_tree, limit)


# Built once per set of arguments (all hashable, and the class ids, not
# names, so a class made again gets a new statement): the same request
# then reuses one immutable statement and its SQLAlchemy cache key, where
# building them was most of a short request's CPU.
@functools.lru_cache(maxsize=256)
def _candidate_select(amounts: tuple, required, root_required,
                      member_of: tuple, forbidden_aggregates: frozenset,
                      in_tree, limit) -> sa.Select:
    query = _with_summaries(sa.select(RP.id))
    if in_tree is not None:
        query = query.where(RP.root_provider_id ==
                            rp_api.root_id_of(in_tree))
    query = trait_api.narrowed(query, required, RP.id)
    if root_required:
        query = query.where(*trait_api.provider_filter(
            root_required, RP.root_provider_id))
    query = query.where(*agg_api.member_of_filter(
        member_of, forbidden_aggregates, RP.id))
    for class_id, amount in amounts:
        query = query.where(inv_api.has_capacity(RP.id, class_id, amount))
    if limit is not None:
        query = query.limit(limit)
    # The columns get_candidates reads with each id.
    return query.add_columns(RP.uuid, *rp_api.tree_uuids(),
                             *_SUMMARY_COLUMNS)


def _with_summaries(query: sa.Select) -> sa.Select:
    """``query`` of providers (RP) joined to each one's inventories
    ('class id:capacity:used', ...) and trait ids ('id,...') as text, in
    no set order, as database triggers keep them (provider_summary):
    most providers look alike, so equal texts are read once
    (get_candidates). Call it first, before any other join (a required
    trait's rows, trait_api.narrowed), so that those join to this one;
    the columns come with _SUMMARY_COLUMNS.

    One primary key probe per provider (a LEFT JOIN; the planners still
    start from a required trait's rows), not two scalar subqueries, a
    probe each (a fifth of a 100-candidate page's statement on SQLite).
    Every provider has its row (triggers make it); a missing one would
    read as NULL either way."""
    return query.join_from(RP, SUMMARY,
                           SUMMARY.resource_provider_id == RP.id,
                           isouter=True)


_SUMMARY_COLUMNS = (SUMMARY.inventories, SUMMARY.traits)


def class_names(conn) -> dict:
    """{id: name} of every resource class: one small read that serves
    both the request's names and the answer's (a few hundred rows cost
    less than a statement more)."""
    return dict(conn.execute(_CLASS_NAMES).all())


def _classes_and_trees(conn) -> tuple:
    """(class_names(), candidate_trees.uses_trees()) in one statement:
    every candidates request asks both."""
    rows = driver_read.rows(conn, _CLASSES_AND_TREES)[1]
    if not rows:  # no class at all: nothing carried the flag
        return {}, candidate_trees.uses_trees(conn)
    return {cid: name for cid, name, _ in rows}, bool(rows[0][2])


def _ids_by_name(classes: dict) -> dict:
    return {name: cid for cid, name in classes.items()}


def _is_simple(groups: list, same_subtrees) -> bool:
    """One unnamed group: flat candidates do, unless the data has trees."""
    return len(groups) == 1 and not groups[0].suffix and not same_subtrees


def get_tree_candidates(context, groups: list, group_policy=None,
                        root_required=None, same_subtrees=(),
                        limit=None, nested_aware=True) -> dict | None:
    """{'trees': [(provider uuids, Shape)], 'summaries': [(uuid,
    resources, traits, parent uuid, root uuid)]} (see _tree_result), or
    None when the request and the data need no trees (one unnamed group,
    no nested or sharing provider): get_candidates then.
    Not ``nested_aware`` (before 1.29), no two providers of a request
    share a tree.
    """
    with db_session.reader.using(context) as session:
        conn = session.connection()
        if (_is_simple(groups, same_subtrees)
                and not candidate_trees.uses_trees(conn)):
            return None
        return _tree_candidates(
            session, conn, class_names(conn), groups, group_policy,
            root_required, same_subtrees, limit, nested_aware)


def _tree_candidates(session, conn, classes: dict, groups: list,
                     group_policy, root_required, same_subtrees, limit,
                     nested_aware) -> dict:
    names = set()
    for requirement in [root_required] + [g.required for g in groups]:
        if requirement:
            names |= requirement.names
    trait_api.check_exist(session, names)
    wanted = {n for g in groups for n in g.resources}
    ids = _ids_by_name(classes)
    rp_api.amounts_by_id(dict.fromkeys(wanted, 1), ids)  # unknown: 400
    class_ids = {name: ids[name] for name in wanted}
    found, root_of = candidate_trees.find(
        conn, groups, class_ids, group_policy, root_required,
        same_subtrees, limit, nested_aware)
    return _tree_result(conn, found, root_of, classes)


def get_any_candidates(context, groups: list, flat: dict | None,
                       group_policy=None, root_required=None,
                       same_subtrees=(), limit=None,
                       nested_aware=True) -> dict | FlatCandidates:
    """get_tree_candidates(), else get_candidates(**flat), in one read
    transaction and one session: the classes and whether the data has
    trees are one statement (_classes_and_trees). A Core connection,
    not an ORM session: every statement here is Core, and the session's
    setup and teardown cost as much as one of them."""
    with db_session.reader.connection.using(context) as conn:
        classes, trees = _classes_and_trees(conn)
        if trees or not _is_simple(groups, same_subtrees):
            return _tree_candidates(
                conn, conn, classes, groups, group_policy,
                root_required, same_subtrees, limit, nested_aware)
        return _flat_candidates(conn, conn, classes, **flat)


def _tree_result(conn, found: list, root_of: dict, class_names: dict) -> dict:
    """The answers by uuid and class name.

    'trees': [(provider uuids, Shape)], a tree's requests over its
    providers' uuids (candidate_trees.expanded() gives them as dicts);
    the trees that look alike share one Shape, its amounts
    {class name: amount}. 'summaries': [(uuid, resources, traits,
    parent uuid, root uuid)] of every provider of the trees the requests
    use, in id order; equal resources and traits are one shared object.
    """
    if not found:
        return {'trees': [], 'summaries': []}
    roots = sorted(set(map(root_of.__getitem__, itertools.chain.from_iterable(
        [pids for pids, _ in found]))))
    ids, parents, root_ids, uuid_list, inventories, traits = zip(
        *_tree_providers(conn, roots))
    uuids = dict(zip(ids, uuid_list))
    summaries = list(zip(
        uuid_list, _read_inventories(inventories, class_names),
        _read_traits(conn, traits), list(map(uuids.get, parents)),
        list(map(uuids.__getitem__, root_ids))))
    named, shapes, trees = {}, {}, []
    for pids, shape in found:
        mine = shapes.get(id(shape))
        if mine is None:
            mine = shapes[id(shape)] = candidate_trees.Shape(tuple(
                ({slot: _named(amounts, named, class_names)
                  for slot, amounts in allocation.items()}, mappings)
                for allocation, mappings in shape.requests))
        trees.append((tuple(map(uuids.__getitem__, pids)), mine))
    return {'trees': trees, 'summaries': summaries}


def _named(amounts: dict, named: dict, class_names: dict) -> dict:
    """{class name: amount} of {class id: amount}, one dict per value."""
    key = tuple(amounts.items())
    value = named.get(key)
    if value is None:
        value = named[key] = {class_names[cid]: amount
                              for cid, amount in key}
    return value


def _tree_providers_select(where) -> sa.Select:
    return _with_summaries(
        sa.select(RP.id, RP.parent_provider_id, RP.root_provider_id,
                  RP.uuid, *_SUMMARY_COLUMNS)).where(
        where(RP.root_provider_id)).order_by(RP.id)


def _tree_providers(conn, roots: list) -> list:
    """(id, parent id, root id, uuid, inventory text, trait ids text) of
    the providers of the trees of ``roots``, in id order: the summaries
    come with the rows (_with_summaries), not from thousands of
    inventory and trait rows more."""
    rows = []
    for chunk in _chunks(roots):
        rows += provider_base.rows_for_ids(
            conn, _tree_providers_select, chunk)
    if len(roots) > _IN_CHUNK:
        rows.sort()
    return rows


def _chunks(ids: list, size: int = _IN_CHUNK):
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


def get_candidates(context, resources: dict, required=None, member_of=(),
                   forbidden_aggregates=(), in_tree=None,
                   root_required=None, limit=None) -> FlatCandidates:
    """The providers that alone satisfy ``resources`` and the filters,
    with their summaries, from one query."""
    with db_session.reader.using(context) as session:
        conn = session.connection()
        return _flat_candidates(
            session, conn, class_names(conn), resources, required,
            member_of, forbidden_aggregates, in_tree, root_required, limit)


def _flat_candidates(session, conn, classes: dict, resources: dict,
                     required=None, member_of=(), forbidden_aggregates=(),
                     in_tree=None, root_required=None,
                     limit=None) -> FlatCandidates:
    names = set()
    for requirement in (required, root_required):
        if requirement:
            names |= requirement.names
    trait_api.check_exist(session, names)
    if in_tree is not None and conn.scalar(
            sa.select(RP.id).where(RP.uuid == in_tree)) is None:
        return FlatCandidates([], [], [], [], [])
    rows = driver_read.rows(conn, candidate_query(
        _ids_by_name(classes), resources, required, member_of,
        forbidden_aggregates, in_tree, root_required, limit))[1]
    if not rows:
        return FlatCandidates([], [], [], [], [])
    _ids, uuids, parents, roots, inventories, traits = (
        provider_base.columns(rows, 6))
    return FlatCandidates(
        uuids, parents, roots, _read_inventories(inventories, classes),
        _read_traits(conn, traits))


def _read_inventories(texts, class_names: dict) -> list:
    """_with_summaries' inventory texts as {class: {'capacity', 'used'}}
    in class id order (``class_names`` by id), each distinct text read
    once."""
    read = {None: {}}
    for text in set(texts) - set(read):
        entries = sorted(tuple(map(int, entry.split(':')))
                         for entry in text.split(','))
        read[text] = {class_names[cid]: {'capacity': capacity,
                                         'used': used}
                      for cid, capacity, used in entries}
    return [read[text] for text in texts]


def _trait_names_select(where) -> sa.Select:
    return sa.select(TRAIT.id, TRAIT.name).where(where(TRAIT.id))


def _read_traits(conn, texts) -> list:
    """_with_summaries' trait id texts as names in id order, each
    distinct text read once."""
    ids = {text: sorted(map(int, text.split(',')))
           for text in set(texts) if text is not None}
    names = dict(provider_base.rows_for_ids(
        conn, _trait_names_select, set().union(*ids.values()))
        if ids else ())
    read = {text: [names[i] for i in trait_ids]
            for text, trait_ids in ids.items()}
    read[None] = []
    return [read[text] for text in texts]
