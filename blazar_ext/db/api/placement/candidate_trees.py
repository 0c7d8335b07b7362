"""Allocation candidates over provider trees and sharing providers.

The general case of GET /allocation_candidates: several request groups
(granular, 1.25), nested providers and providers sharing through an
aggregate (MISC_SHARES_VIA_AGGREGATE). The database finds, for each
(group, resource class), the providers with capacity that pass the
group's per-provider filters (traits, aggregates, tree), with the root of
the tree each can serve: a sharing provider serves every tree one of whose
providers shares an aggregate with it. Only trees every (group, class)
can serve go on; their combinations are then built and checked (isolation,
summed capacity, the unnamed group's traits on the providers it uses,
same_subtree), since each combination is one answer.
"""

import collections
import dataclasses
import itertools

import sqlalchemy as sa

from blazar_ext.db.api.placement import aggregate as agg_api
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.models import placement as models

RP = models.ResourceProvider
INV = models.Inventory
RPA = models.ResourceProviderAggregate
SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
# Stop enumerating combinations of one tree past this many; a request
# that broad is answered with the first ones found.
MAX_PER_TREE = 1000
_ids_in = provider_base.ids_in


@dataclasses.dataclass
class RequestGroup:
    """One request group: '' is the unnamed group, spread over a tree."""

    suffix: str = ''
    resources: dict = dataclasses.field(default_factory=dict)
    required: object = None
    member_of: list = dataclasses.field(default_factory=list)
    forbidden_aggregates: set = dataclasses.field(default_factory=set)
    in_tree: str | None = None

    @property
    def same_provider(self) -> bool:
        return bool(self.suffix)


def _member_of(group: RequestGroup) -> list:
    """Aggregate filters, as Placement applies them.

    A suffixed group's provider must itself be in (and out of) the
    aggregates. In the unnamed group an aggregate on the root spans the
    tree: the provider or its root must meet every member_of, and neither
    may be in a forbidden aggregate.
    """
    if group.same_provider:
        return agg_api.member_of_filter(group.member_of,
                                        group.forbidden_aggregates, RP.id)
    clauses = []
    if group.member_of:
        clauses.append(sa.or_(
            sa.and_(*agg_api.member_of_filter(group.member_of, (), RP.id)),
            sa.and_(*agg_api.member_of_filter(group.member_of, (),
                                              RP.root_provider_id))))
    if group.forbidden_aggregates:
        clauses += agg_api.member_of_filter((), group.forbidden_aggregates,
                                            RP.id)
        clauses += agg_api.member_of_filter((), group.forbidden_aggregates,
                                            RP.root_provider_id)
    return clauses


def _trait_clauses(group: RequestGroup) -> list:
    requirement = group.required
    if not requirement:
        return []
    if group.same_provider:
        return trait_api.provider_filter(requirement, RP.id)
    # The unnamed group's required traits may sit on any provider it
    # uses (checked per combination); a forbidden one on none of them.
    if requirement.forbidden:
        return trait_api.provider_filter(
            type(requirement)(forbidden=requirement.forbidden), RP.id)
    return []


def _tree_clause(conn, in_tree: str | None):
    if in_tree is None:
        return []
    root = conn.scalar(sa.select(RP.root_provider_id).where(
        RP.uuid == in_tree))
    return [RP.root_provider_id == root]


def _root_clauses(root_filter, sharing: set) -> list:
    """WHERE clauses keeping a provider whose root meets ``root_filter``,
    or a sharing provider (it serves other trees, filtered by their
    roots in _anchors): trees that fail never leave the database."""
    if not root_filter:
        return []
    clauses = trait_api.provider_filter(root_filter, RP.root_provider_id)
    if not sharing:
        return clauses
    return [sa.or_(sa.and_(*clauses), _ids_in(RP.id, sorted(sharing)))]


def _providers_for(conn, group, class_id, amount, sharing_ids,
                   inventory: dict, root_filter=None) -> dict:
    """{root id: {provider id}} that can give ``amount`` of the class.

    Adds (capacity, used, max_unit) of each one's inventory of the class
    to ``inventory`` by (provider id, class id): the rows come with them.
    Trees whose root fails ``root_filter`` are left out.
    """
    inv = sa.orm.aliased(INV)
    used = inv_api.used_expression(inv.resource_provider_id,
                                   inv.resource_class_id)
    query = (sa.select(RP.id, RP.root_provider_id,
                       inv.total - inv.reserved, inv.allocation_ratio,
                       used, inv.max_unit)
             .join(inv, sa.and_(inv.resource_provider_id == RP.id,
                                inv.resource_class_id == class_id))
             .where(*inv_api.fits(inv, amount),
                    *_trait_clauses(group), *_member_of(group),
                    *_tree_clause(conn, group.in_tree),
                    *_root_clauses(root_filter, sharing_ids)))
    roots = collections.defaultdict(set)
    sharing = []
    # all(): fetched at once, not a row at a time through the cursor.
    for pid, root, free, ratio, in_use, max_unit in conn.execute(
            query).all():
        roots[root].add(pid)
        inventory[(pid, class_id)] = (int(free * ratio), int(in_use),
                                      max_unit)
        if pid in sharing_ids:
            sharing.append(pid)
    # A sharing provider serves the trees it shares with. in_tree keeps
    # the unnamed group in one tree, but a suffixed group's provider may
    # still be shared out of its own (as Placement).
    if sharing and (group.in_tree is None or group.same_provider):
        for pid, root in _anchors(conn, sharing, root_filter):
            roots[root].add(pid)
    return roots


def _anchors(conn, sharing: list, root_filter=None) -> list:
    """(sharing provider id, root id) of every tree it shares with whose
    root meets ``root_filter``."""
    mine, theirs = sa.orm.aliased(RPA), sa.orm.aliased(RPA)
    other = sa.orm.aliased(RP)
    query = (sa.select(mine.resource_provider_id, other.root_provider_id)
             .join(theirs, theirs.aggregate_id == mine.aggregate_id)
             .join(other, other.id == theirs.resource_provider_id)
             .where(_ids_in(mine.resource_provider_id, sharing)))
    if root_filter:
        query = query.where(*trait_api.provider_filter(
            root_filter, other.root_provider_id))
    return conn.execute(query.distinct()).all()


# Asked by every request: built once (building was most of their cost).
_SHARING = (sa.select(models.ResourceProviderTrait.resource_provider_id)
            .join(models.Trait, models.Trait.id ==
                  models.ResourceProviderTrait.trait_id)
            .where(models.Trait.name == SHARING_TRAIT))
_ANY_CHILD = sa.select(sa.exists().where(RP.parent_provider_id.isnot(None)))


def sharing_ids(conn) -> set:
    """Ids of the providers that share through their aggregates."""
    return set(conn.scalars(_SHARING))


def uses_trees(conn) -> bool:
    """Whether any provider has a parent or shares through an aggregate."""
    if conn.scalar(_ANY_CHILD):
        return True
    return bool(sharing_ids(conn))


@dataclasses.dataclass
class _Tree:
    """What the database knows about the providers of candidate trees."""

    parents: dict
    roots: dict
    uuids: dict
    traits: dict
    inventory: dict  # (provider id, class id) -> (capacity, used, max_unit)


def _tree_data(conn, root_ids, extra_ids, inventory: dict,
               with_traits: bool) -> _Tree:
    """The providers of the trees of ``root_ids`` and ``extra_ids``; their
    traits only ``with_traits`` (only the unnamed group's required traits
    need them before the summaries)."""
    rows = conn.execute(sa.select(RP.id, RP.parent_provider_id,
                                  RP.root_provider_id, RP.uuid).where(sa.or_(
                                      _ids_in(RP.root_provider_id, root_ids),
                                      _ids_in(RP.id, extra_ids)))).all()
    traits = collections.defaultdict(set)
    if with_traits:
        rpt, trait = models.ResourceProviderTrait, models.Trait
        for pid, name in conn.execute(
                sa.select(rpt.resource_provider_id, trait.name)
                .join(trait, trait.id == rpt.trait_id)
                .where(_ids_in(rpt.resource_provider_id,
                               [row[0] for row in rows]))).all():
            traits[pid].add(name)
    return _Tree(parents={r[0]: r[1] for r in rows},
                 roots={r[0]: r[2] for r in rows},
                 uuids={r[0]: r[3] for r in rows}, traits=traits,
                 inventory=inventory)


def _satisfies(requirement, names: set) -> bool:
    if not requirement:
        return True
    return (requirement.required <= names
            and not (requirement.forbidden & names)
            and all(group & names for group in requirement.any_of))


def _group_options(group, class_ids, options, root, tree):
    """Each way one group can be met in the tree of ``root``:
    {provider id: {class id: amount}}; read-only, the inner dicts may be
    shared."""
    per_class = [(class_ids[name], amount, sorted(options[(group.suffix,
                                                           name)][root]))
                 for name, amount in sorted(group.resources.items())]
    if group.same_provider:
        common = set.intersection(*(set(p) for _, _, p in per_class))
        amounts = {cid: amount for cid, amount, _ in per_class}
        for pid in sorted(common):
            yield {pid: amounts}
        return
    check_traits = bool(group.required)
    for choice in itertools.product(*(p for _, _, p in per_class)):
        if check_traits:
            names = set().union(*(tree.traits.get(p, ()) for p in choice))
            if not _satisfies(group.required, names):
                continue
        alloc = {}
        for (cid, amount, _), pid in zip(per_class, choice):
            mine = alloc.get(pid)
            if mine is None:
                alloc[pid] = {cid: amount}
            else:
                mine[cid] = amount
        yield alloc


def _fits(tree, combination) -> bool:
    """Summed amounts per provider and class within capacity and max_unit."""
    totals = collections.Counter()
    for alloc in combination:
        for pid, amounts in alloc.items():
            for cid, amount in amounts.items():
                totals[(pid, cid)] += amount
    for key, amount in totals.items():
        capacity, used, max_unit = tree.inventory[key]
        if used + amount > capacity or amount > max_unit:
            return False
    return True


def _may_overlap(groups) -> bool:
    """Whether two groups ask for the same class, so that a provider may
    be asked for a sum: else every amount was checked alone, in SQL."""
    seen = set()
    for group in groups:
        if seen & set(group.resources):
            return True
        seen |= set(group.resources)
    return False


def _ancestors(tree, pid) -> list:
    chain = []
    while pid is not None:
        chain.append(pid)
        pid = tree.parents.get(pid)
    return chain


def _same_subtree(tree, providers: list) -> bool:
    """One of ``providers`` is an ancestor (or self) of all the others."""
    chains = [set(_ancestors(tree, p)) for p in providers]
    return any(all(p in chain for chain in chains) for p in providers)


def _resourceless(conn, group, root_ids) -> dict:
    """{root: {provider id}} meeting a resourceless group's filters."""
    query = sa.select(RP.id, RP.root_provider_id).where(
        _ids_in(RP.root_provider_id, root_ids),
        *trait_api.provider_filter(group.required, RP.id)
        if group.required else [], *_member_of(group),
        *_tree_clause(conn, group.in_tree))
    roots = collections.defaultdict(set)
    for pid, root in conn.execute(query).all():
        roots[root].add(pid)
    return roots


def find(conn, groups: list, class_ids: dict, group_policy=None,
         root_filter=None, same_subtrees=(), limit=None, nested_aware=True):
    """[(allocation {pid: {cid: amount}}, mappings {suffix: [pid]})], and
    the _Tree of the providers involved.

    Not ``nested_aware`` (before 1.29), an allocation takes from one
    provider per tree at most: sharing providers still combine with a
    tree, a tree's providers not with each other (as Placement).
    """
    sharing = sharing_ids(conn)
    options = {}
    inventory = {}
    candidate_roots = None
    for group in groups:
        for name, amount in group.resources.items():
            roots = _providers_for(conn, group, class_ids[name], amount,
                                   sharing, inventory, root_filter)
            options[(group.suffix, name)] = roots
            keys = set(roots)
            candidate_roots = (keys if candidate_roots is None
                               else candidate_roots & keys)
    candidate_roots = candidate_roots or set()
    if root_filter is not None and candidate_roots:
        candidate_roots &= set(conn.scalars(
            sa.select(RP.id).where(_ids_in(RP.id, candidate_roots),
                                   *trait_api.provider_filter(root_filter,
                                                              RP.id))))
    resourceless = {g.suffix: _resourceless(conn, g, candidate_roots)
                    for g in groups if not g.resources}
    for suffix, roots in resourceless.items():
        candidate_roots &= set(roots)
    extra = {pid for roots in options.values() for pids in roots.values()
             for pid in pids}
    tree = _tree_data(conn, sorted(candidate_roots), sorted(extra),
                      inventory, any(g.required and not g.same_provider
                                     for g in groups))
    check_fits = _may_overlap(groups)
    check_more = group_policy == 'isolate' or same_subtrees
    # The same request twice needs groups asking for one class (their
    # choices may add up alike) or a request of sharing providers alone
    # (found in every tree they serve): else no two are equal.
    maybe_twice = check_fits
    results = []
    for root in sorted(candidate_roots):
        per_group = []
        for group in groups:
            if group.resources:
                ways = list(_group_options(group, class_ids, options, root,
                                           tree))
            else:
                ways = [{pid: {}} for pid in sorted(
                    resourceless[group.suffix][root])]
            per_group.append(ways)
        found = 0
        for combination in itertools.product(*per_group):
            if (check_fits or check_more) and not _acceptable(
                    tree, groups, combination, group_policy, same_subtrees,
                    check_fits):
                continue
            merged = _merge(groups, combination)
            if not nested_aware and not _one_per_tree(tree, merged[0]):
                continue
            if sharing and not maybe_twice:
                maybe_twice = not _in_tree(tree, root, merged[1])
            results.append(merged)
            found += 1
            if found >= MAX_PER_TREE or (limit and len(results) >= limit):
                break
        if limit and len(results) >= limit:
            break
    return (_unique(results) if maybe_twice else results), tree


def _in_tree(tree, root, mappings: dict) -> bool:
    """Whether a request uses a provider of the tree of ``root``."""
    roots = tree.roots
    return any(roots.get(pid) == root for pids in mappings.values()
               for pid in pids)


def _acceptable(tree, groups, combination, group_policy, same_subtrees,
                check_fits=True):
    if group_policy == 'isolate':
        # Every suffixed group, resourceless ones too, on its own provider.
        granular = [set(a) for g, a in zip(groups, combination)
                    if g.same_provider]
        seen = set()
        for providers in granular:
            if providers & seen:
                return False
            seen |= providers
    if check_fits and not _fits(tree, [a for g, a in zip(groups,
                                                         combination)
                                       if g.resources]):
        return False
    by_suffix = {g.suffix: a for g, a in zip(groups, combination)}
    for suffixes in same_subtrees:
        providers = [p for s in suffixes for p in by_suffix[s]]
        if not _same_subtree(tree, providers):
            return False
    return True


def _one_per_tree(tree, allocation) -> bool:
    roots = [tree.roots.get(pid, pid) for pid in allocation]
    return len(roots) == len(set(roots))


def _merge(groups, combination):
    """(resources {pid: {cid: amount}}, mappings {suffix: [pid]})."""
    if len(combination) == 1:
        alloc = combination[0]
        return ({pid: amounts for pid, amounts in alloc.items() if amounts},
                {groups[0].suffix: sorted(alloc)})
    allocation = {}
    mappings = {}
    for group, alloc in zip(groups, combination):
        mappings[group.suffix] = sorted(alloc)
        for pid, amounts in alloc.items():
            mine = allocation.get(pid)
            if mine is None:
                allocation[pid] = dict(amounts)
                continue
            for cid, amount in amounts.items():
                mine[cid] = mine.get(cid, 0) + amount
    resources = {pid: amounts for pid, amounts in allocation.items()
                 if amounts}
    return resources, mappings


def _unique(results):
    seen, unique = set(), []
    for allocation, mappings in results:
        key = (tuple(sorted((p, tuple(sorted(a.items())))
                            for p, a in allocation.items())),
               tuple(sorted((s, tuple(p)) for s, p in mappings.items())))
        if key not in seen:
            seen.add(key)
            unique.append((allocation, mappings))
    return unique
