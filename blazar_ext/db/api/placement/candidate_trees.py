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
import functools
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


def _providers_for(conn, group, amounts: list, sharing_ids,
                   found: '_Found', root_filter=None) -> dict:
    """{root id: {provider id}} that can give each (class id, amount) of
    ``amounts`` (several only for a suffixed group, whose provider gives
    them all: one query instead of one a class, intersected).

    Notes in ``found`` each provider's root, the roots known to meet
    ``root_filter`` and, when ``found.inventory`` is kept (groups may
    ask one provider for a sum), (capacity, used, max_unit) of each
    one's inventory of the classes by (provider id, class id). Trees
    whose root fails ``root_filter`` are left out.
    """
    inventory = found.inventory
    query = sa.select(RP.id, RP.root_provider_id)
    for class_id, amount in amounts:
        inv = sa.orm.aliased(INV)
        if inventory is not None:
            query = query.add_columns(
                inv.total - inv.reserved, inv.allocation_ratio,
                inv_api.used_expression(inv.resource_provider_id,
                                        inv.resource_class_id),
                inv.max_unit)
        query = query.join(inv, sa.and_(inv.resource_provider_id == RP.id,
                                        inv.resource_class_id == class_id)
                           ).where(*inv_api.fits(inv, amount))
    query = query.where(*_trait_clauses(group), *_member_of(group),
                        *_tree_clause(conn, group.in_tree),
                        *_root_clauses(root_filter, sharing_ids))
    # all(): fetched at once, not a row at a time through the cursor.
    rows = conn.execute(query).all()
    roots = collections.defaultdict(set)
    for row in rows:
        roots[row[1]].add(row[0])
    found.root_of.update((row[0], row[1]) for row in rows)
    sharing = ([row[0] for row in rows if row[0] in sharing_ids]
               if sharing_ids else [])
    if root_filter:
        # The root clause held for the others: their roots meet it.
        found.verified.update([row[1] for row in rows
                               if row[0] not in sharing_ids])
    if inventory is not None:
        for row in rows:
            for index, (class_id, _) in enumerate(amounts):
                free, ratio, in_use, max_unit = row[2 + 4 * index:
                                                    6 + 4 * index]
                inventory[(row[0], class_id)] = (
                    int(free * ratio), int(in_use), max_unit)
    # A sharing provider serves the trees it shares with. in_tree keeps
    # the unnamed group in one tree, but a suffixed group's provider may
    # still be shared out of its own (as Placement).
    if sharing and (group.in_tree is None or group.same_provider):
        for pid, root in _anchors(conn, sharing, root_filter):
            roots[root].add(pid)
            found.verified.add(root)
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
# Whether any provider has a parent: the greatest parent id, one probe of
# the parent index at the end (MAX of an indexed column), where EXISTS
# ... IS NOT NULL scanned every provider on SQLite (its planner does not
# take the index for IS NOT NULL): 50 µs a request at 1,000 providers.
_ANY_CHILD = sa.select(sa.func.max(RP.parent_provider_id)).scalar_subquery(
).isnot(None)
# uses_trees() in one statement: every candidates request asks it.
USES_TREES = sa.select(sa.or_(_ANY_CHILD, sa.exists(
    _SHARING.with_only_columns(sa.literal(1)))))


def sharing_ids(conn) -> set:
    """Ids of the providers that share through their aggregates."""
    return set(conn.scalars(_SHARING))


def uses_trees(conn) -> bool:
    """Whether any provider has a parent or shares through an aggregate."""
    return bool(conn.scalar(USES_TREES))


@dataclasses.dataclass
class _Tree:
    """What the checks of a combination read about its providers."""

    parents: dict
    roots: dict
    traits: dict
    inventory: dict | None  # (provider id, class id) -> (capacity, used,
    #                         max_unit), kept when groups may overlap


@dataclasses.dataclass
class _Found:
    """What the provider queries note on the way."""

    inventory: dict | None
    root_of: dict = dataclasses.field(default_factory=dict)
    verified: set = dataclasses.field(default_factory=set)


@dataclasses.dataclass(eq=False)
class Shape:
    """The allocation requests of one tree, over its slots.

    ``requests`` are (allocation {slot: {class: amount}}, mappings
    {suffix: (slot, ...)}); slot i stands for the i-th provider (in id
    order) of the tree's entry. Trees whose options have one pattern
    share one shape: it is found, named and written once. Read-only.
    """

    requests: tuple


def _tree_data(conn, root_ids, extra_ids, inventory: dict | None,
               with_traits: bool) -> _Tree:
    """Parents and roots of the providers of the trees of ``root_ids``
    and of ``extra_ids``; their traits only ``with_traits`` (only the
    unnamed group's required traits need them)."""
    rows = conn.execute(sa.select(RP.id, RP.parent_provider_id,
                                  RP.root_provider_id).where(sa.or_(
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
                 roots={r[0]: r[2] for r in rows}, traits=traits,
                 inventory=inventory)


def _satisfies(requirement, names: set) -> bool:
    if not requirement:
        return True
    return (requirement.required <= names
            and not (requirement.forbidden & names)
            and all(group & names for group in requirement.any_of))


def _group_options(group, amounts: list, lists: list, tree,
                   check_traits: bool) -> list:
    """Each way one group can be met from ``lists`` (its providers per
    class, in id order, beside ``amounts`` [(class id, amount)]; or of a
    resourceless group): {provider id: {class id: amount}}; read-only,
    the inner dicts may be shared."""
    if not amounts:
        return [{pid: {}} for pid in lists[0]]
    if group.same_provider:
        common = set(lists[0]).intersection(*lists[1:])
        shared = dict(amounts)
        return [{pid: shared} for pid in sorted(common)]
    check_traits = check_traits and bool(group.required)
    ways = []
    for choice in itertools.product(*lists):
        if check_traits:
            names = set().union(*(tree.traits.get(p, ()) for p in choice))
            if not _satisfies(group.required, names):
                continue
        alloc = {}
        for (cid, amount), pid in zip(amounts, choice):
            mine = alloc.get(pid)
            if mine is None:
                alloc[pid] = {cid: amount}
            else:
                mine[cid] = amount
        ways.append(alloc)
    return ways


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


def _resourceless(conn, group, root_ids, root_of: dict) -> dict:
    """{root: {provider id}} meeting a resourceless group's filters."""
    query = sa.select(RP.id, RP.root_provider_id).where(
        _ids_in(RP.root_provider_id, root_ids),
        *trait_api.provider_filter(group.required, RP.id)
        if group.required else [], *_member_of(group),
        *_tree_clause(conn, group.in_tree))
    roots = collections.defaultdict(set)
    for pid, root in conn.execute(query).all():
        roots[root].add(pid)
        root_of[pid] = root
    return roots


def _failing_roots(conn, root_ids, root_filter) -> set:
    """Those of ``root_ids`` that do not meet ``root_filter``."""
    if not root_ids:
        return set()
    return set(root_ids) - set(conn.scalars(
        sa.select(RP.id).where(_ids_in(RP.id, sorted(root_ids)),
                               *trait_api.provider_filter(root_filter,
                                                          RP.id))))


@dataclasses.dataclass
class _Request:
    """What every tree's combinations are built and checked with."""

    groups: list
    amounts: list  # per group: [(class id, amount)] by class name
    group_policy: str | None
    same_subtrees: tuple
    check_fits: bool
    check_traits: bool
    nested_aware: bool

    @property
    def general(self) -> bool:
        """Whether a combination's fate depends on more than which of
        the tree's providers it names (capacity summed, traits, parents,
        roots): then each tree is enumerated on its own."""
        return bool(self.check_fits or self.check_traits
                    or self.same_subtrees or not self.nested_aware)


def _combinations(request: _Request, lists: list, tree) -> list:
    """[(allocation {pid: {cid: amount}}, mappings {suffix: [pid]})] of
    one tree, from ``lists`` (per group, its providers per class, in id
    order), at most MAX_PER_TREE."""
    groups = request.groups
    per_group, start = [], 0
    for group, amounts in zip(groups, request.amounts):
        count = len(amounts) or 1
        per_group.append(_group_options(group, amounts,
                                        lists[start:start + count], tree,
                                        request.check_traits))
        start += count
    check = (request.check_fits or request.group_policy == 'isolate'
             or request.same_subtrees)
    results = []
    for combination in itertools.product(*per_group):
        if check and not _acceptable(tree, groups, combination,
                                     request.group_policy,
                                     request.same_subtrees,
                                     request.check_fits):
            continue
        merged = _merge(groups, combination)
        if not request.nested_aware and not _one_per_tree(tree, merged[0]):
            continue
        results.append(merged)
        if len(results) >= MAX_PER_TREE:
            break
    return results


def _shape(results: list, in_tree) -> tuple:
    """(Shape, the providers its slots stand for, whether a request
    uses no provider ``in_tree``) of one tree's ``results``."""
    used = sorted({pid for _, mappings in results
                   for pids in mappings.values() for pid in pids})
    slot = {pid: i for i, pid in enumerate(used)}
    requests = tuple(
        ({slot[pid]: amounts for pid, amounts in allocation.items()},
         {suffix: tuple([slot[pid] for pid in pids])
          for suffix, pids in mappings.items()})
        for allocation, mappings in results)
    off_tree = not all(any(in_tree(pid) for pids in mappings.values()
                           for pid in pids) for _, mappings in results)
    return Shape(requests), tuple(used), off_tree


def expanded(pids, shape: Shape):
    """The requests of ``shape`` with its slots' ``pids`` (or uuids):
    (allocation {pid: amounts}, mappings {suffix: [pid]})."""
    for allocation, mappings in shape.requests:
        yield ({pids[s]: amounts for s, amounts in allocation.items()},
               {suffix: [pids[s] for s in slots]
                for suffix, slots in mappings.items()})


class _Patterns:
    """Shapes by pattern: trees whose options, written as positions
    among the tree's own providers (with which of them are in the tree),
    are alike have the same combinations, found once."""

    def __init__(self, request: _Request):
        self.request = request
        self.shapes = {}

    def entry(self, lists: list, root_of: dict, root) -> tuple:
        """(Shape, provider ids of its slots, whether a request uses no
        provider of the tree) of the tree of ``root``."""
        local = sorted(set().union(*lists))
        index = dict(zip(local, range(len(local))))
        flags = tuple([root_of[pid] == root for pid in local])
        key = (tuple([tuple(map(index.__getitem__, pids))
                      for pids in lists]), flags)
        known = self.shapes.get(key)
        if known is None:
            known = self.shapes[key] = _shape(
                _combinations(self.request, key[0], None),
                flags.__getitem__)
        shape, slots, off_tree = known
        return shape, tuple(map(local.__getitem__, slots)), off_tree


def find(conn, groups: list, class_ids: dict, group_policy=None,
         root_filter=None, same_subtrees=(), limit=None, nested_aware=True):
    """[(provider ids, Shape)], one entry a tree with answers in root id
    order, and {provider id: root id} of the providers they name.

    Not ``nested_aware`` (before 1.29), an allocation takes from one
    provider per tree at most: sharing providers still combine with a
    tree, a tree's providers not with each other (as Placement).
    """
    sharing = sharing_ids(conn)
    check_fits = _may_overlap(groups)
    found = _Found(inventory={} if check_fits else None)
    options = []
    candidate_roots = None
    amounts_of = [[(class_ids[name], amount) for name, amount in
                   sorted(g.resources.items())] for g in groups]
    for group, amounts in zip(groups, amounts_of):
        # A suffixed group's classes all come from one provider: one
        # query for them all, its answer each class's options.
        for part in ([amounts] if group.same_provider and amounts
                     else [[pair] for pair in amounts]):
            roots = _providers_for(conn, group, part, sharing, found,
                                   root_filter)
            options += [roots] * len(part)
            keys = set(roots)
            candidate_roots = (keys if candidate_roots is None
                               else candidate_roots & keys)
    candidate_roots = candidate_roots or set()
    if root_filter is not None:
        # Only roots reached through a sharing provider's own tree are
        # still to check.
        candidate_roots -= _failing_roots(
            conn, candidate_roots - found.verified, root_filter)
    resourceless = {g.suffix: _resourceless(conn, g, candidate_roots,
                                            found.root_of)
                    for g in groups if not g.resources}
    for roots in resourceless.values():
        candidate_roots &= set(roots)
    maps, start = [], 0
    for group in groups:
        if group.resources:
            count = len(group.resources)
            maps += options[start:start + count]
            start += count
        else:
            maps.append(resourceless[group.suffix])
    request = _Request(
        groups, amounts_of, group_policy, tuple(same_subtrees), check_fits,
        any(g.required and not g.same_provider for g in groups),
        nested_aware)
    root_of = found.root_of
    tree = _Tree({}, root_of, {}, found.inventory)
    if request.check_traits or same_subtrees:
        tree = _tree_data(conn, sorted(candidate_roots),
                          sorted(p for p, r in root_of.items()
                                 if r not in candidate_roots),
                          found.inventory, request.check_traits)
    patterns = None if request.general else _Patterns(request)
    # The same request twice needs groups asking for one class (their
    # choices may add up alike) or a request of sharing providers alone
    # (found in every tree they serve): else no two are equal.
    maybe_twice = check_fits
    entries, total = [], 0
    for root in sorted(candidate_roots):
        lists = [sorted(roots[root]) for roots in maps]
        if patterns is not None:
            shape, pids, off_tree = patterns.entry(lists, root_of, root)
        else:
            shape, pids, off_tree = _shape(
                _combinations(request, lists, tree),
                functools.partial(_in_tree, root_of, root))
        count = len(shape.requests)
        if not count:
            continue
        if limit and total + count > limit:
            count = limit - total
            shape, pids, off_tree = _shape(
                list(expanded(pids, shape))[:count],
                functools.partial(_in_tree, root_of, root))
        entries.append((pids, shape))
        maybe_twice = maybe_twice or (bool(sharing) and off_tree)
        total += count
        if limit and total >= limit:
            break
    return (_unique(entries) if maybe_twice else entries), root_of


def _in_tree(root_of: dict, root, pid) -> bool:
    return root_of.get(pid) == root


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


def _unique(entries: list) -> list:
    """``entries`` without the requests seen before (first kept)."""
    seen, unique = set(), []
    for pids, shape in entries:
        kept = []
        for allocation, mappings in expanded(pids, shape):
            key = (tuple(sorted((p, tuple(sorted(a.items())))
                                for p, a in allocation.items())),
                   tuple(sorted((s, tuple(p))
                                for s, p in mappings.items())))
            if key not in seen:
                seen.add(key)
                kept.append((allocation, mappings))
        if len(kept) == len(shape.requests):
            unique.append((pids, shape))
        elif kept:
            shape, pids, _ = _shape(kept, bool)
            unique.append((pids, shape))
    return unique
