"""GET /allocation_candidates query string -> request groups.

``resources``, ``required``, ``member_of`` and ``in_tree`` with the same
suffix form one group; the unsuffixed group may spread over a tree, each
suffixed one (1.25) must come from a single provider. Request-wide:
``group_policy``, ``limit``, ``root_required`` (1.35), ``same_subtree``
(1.36). Messages are Placement's.
"""

import dataclasses
import re

from oslo_config import cfg

from blazar_ext.api.placement import error_codes
from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import query_params
from blazar_ext.db.api.placement import candidate_trees

CONF = cfg.CONF

_KEY_1_25 = re.compile(r'^(resources|required|member_of|in_tree)'
                       r'([1-9][0-9]*)?$')
_KEY_1_33 = re.compile(r'^(resources|required|member_of|in_tree)'
                       r'([a-zA-Z0-9_-]{1,64})?$')


@dataclasses.dataclass
class CandidateRequest:
    groups: list
    group_policy: str | None = None
    limit: int | None = None
    root_required: object = None
    same_subtrees: list = dataclasses.field(default_factory=list)
    # From 1.29 one request may take from several providers of a tree.
    nested_aware: bool = True


def _bad(detail: str, code: str = error_codes.DEFAULT):
    return errors.HTTPError(400, detail, code)


def _group(req, suffix: str, keys: set):
    group = candidate_trees.RequestGroup(suffix=suffix)
    if 'resources' in keys:
        group.resources = query_params.resources(
            req.GET.getall('resources' + suffix)[-1])
    if 'required' in keys:
        group.required = query_params.traits(req, 'required' + suffix,
                                             check_conflicts=False)
    if 'member_of' in keys:
        group.member_of, group.forbidden_aggregates = (
            query_params.member_of(req, req.GET.getall('member_of' + suffix),
                                   suffix))
    if 'in_tree' in keys:
        group.in_tree = query_params.in_tree(
            req.GET.getall('in_tree' + suffix)[-1])
    return group


def _check_conflicts(req, groups) -> None:
    found = []
    for group in groups:
        if not group.required:
            continue
        sets = [{n} for n in group.required.required] + [
            set(names) for names in group.required.any_of]
        found += ['required%s: (%s)' % (group.suffix, ', '.join(sorted(s)))
                  for s in sets if s <= group.required.forbidden]
    if found:
        raise _bad('Conflicting required and forbidden traits found in the '
                   'following traits keys: %s' % ', '.join(sorted(found)))


def _check_orphans(groups) -> None:
    orphans = ['required%s' % g.suffix for g in groups
               if g.required and not g.resources]
    if orphans:
        raise _bad('All traits parameters must be associated with '
                   'resources.  Found the following orphaned traits keys: '
                   '%s' % ', '.join(orphans))
    orphans = ['member_of%s' % g.suffix for g in groups
               if not g.resources and (g.member_of or
                                       g.forbidden_aggregates)]
    if orphans:
        raise _bad('All member_of parameters must be associated with '
                   'resources. Found the following orphaned member_of '
                   'keys: %s' % ', '.join(orphans))
    if not all(g.resources for g in groups):
        raise _bad('All request groups must specify resources.')
    if not groups:
        raise _bad('At least one request group (`resources` or '
                   '`resources{$S}`) is required.')


def _check_subtrees(groups, same_subtrees) -> None:
    suffixes = [g.suffix for g in groups]
    resourceless = [g.suffix for g in groups if not g.resources]
    if len(resourceless) == len(groups):
        raise _bad('There must be at least one resources or resources[$S] '
                   'parameter.', error_codes.QUERYPARAM_MISSING_VALUE)
    named = set().union(*same_subtrees) if same_subtrees else set()
    bad = [s for s in resourceless if s not in named]
    if bad:
        raise _bad('Resourceless suffixed group request should be '
                   'specified in `same_subtree` query param: bad group(s) '
                   '- %s.' % bad, error_codes.QUERYPARAM_BAD_VALUE)
    bad = [s for s in sorted(named) if s not in suffixes]
    if bad:
        raise _bad('Real suffixes should be specified in `same_subtree`: '
                   '%s not found in %s.' % (bad, suffixes),
                   error_codes.QUERYPARAM_BAD_VALUE)


def _root_required(req):
    values = req.GET.getall('root_required')
    if not values:
        return None
    if len(values) > 1:
        raise _bad("Query parameter 'root_required' may be specified only "
                   "once.", error_codes.ILLEGAL_DUPLICATE_QUERYPARAM)
    names = [n.strip() for n in values[0].split(',')]
    if not all(names) or any(n == '!' for n in names):
        raise _bad("Invalid query string parameters: Expected "
                   "'root_required' parameter value of the form: "
                   "HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: "
                   "%s" % values[0])
    required = {n for n in names if not n.startswith('!')}
    forbidden = {n[1:] for n in names if n.startswith('!')}
    if required & forbidden:
        raise _bad('Conflicting required and forbidden traits found in '
                   'root_required: %s' % ', '.join(sorted(required &
                                                          forbidden)),
                   error_codes.QUERYPARAM_BAD_VALUE)
    return query_params.trait_query.TraitRequirement(
        required=frozenset(required), forbidden=frozenset(forbidden))


def _same_subtrees(req) -> list:
    result = []
    for value in req.GET.getall('same_subtree'):
        suffixes = {s.strip() for s in value.split(',')}
        if '' in suffixes:
            raise _bad('Empty string (unsuffixed group) can not be '
                       'specified in `same_subtree` ',
                       error_codes.QUERYPARAM_BAD_VALUE)
        result.append(suffixes)
    return result


def _check_group_count(count: int) -> None:
    """Each group is a join in the candidates query: a request with
    thousands of them would hold a worker for seconds."""
    most = CONF.placement_api.max_request_groups
    if count > most:
        raise _bad('The request has %d request groups (resources, '
                   'required, member_of or in_tree with distinct '
                   'suffixes); at most %d are accepted '
                   '([placement_api] max_request_groups).' % (count, most),
                   error_codes.QUERYPARAM_BAD_VALUE)


def parse(req, params: dict) -> CandidateRequest:
    """The request's groups and request-wide parameters, validated."""
    pattern = (_KEY_1_33 if microversion.at_least(req, '1.33')
               else _KEY_1_25)
    by_suffix = {}
    for key in params:
        match = pattern.match(key)
        if match:
            by_suffix.setdefault(match.group(2) or '', set()).add(
                match.group(1))
    _check_group_count(len(by_suffix))
    groups = [_group(req, suffix, keys)
              for suffix, keys in sorted(by_suffix.items())]
    same_subtrees = _same_subtrees(req)
    if microversion.at_least(req, '1.36'):
        _check_subtrees(groups, same_subtrees)
    else:
        _check_orphans(groups)
    if microversion.at_least(req, '1.22'):
        _check_conflicts(req, groups)
    policy = req.GET.getall('group_policy')
    policy = policy[0] if policy else None
    if not policy and len([g for g in groups if g.suffix]) > 1:
        raise _bad('The "group_policy" parameter is required when '
                   'specifying more than one "resources{N}" parameter.')
    limit = req.GET.getall('limit')
    return CandidateRequest(
        groups=groups, group_policy=policy,
        limit=min(int(limit[0]), 2 ** 31 - 1) if limit else None,
        root_required=_root_required(req), same_subtrees=same_subtrees,
        nested_aware=microversion.at_least(req, '1.29'))
