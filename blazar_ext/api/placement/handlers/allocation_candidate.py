"""GET /allocation_candidates (1.10)."""

import itertools
import json

from blazar_ext.api import gc_pause
from blazar_ext.api.placement import candidate_request
from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import query as query_schemas
from blazar_ext.api.placement import text_columns
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import allocation_candidate as ac_api
from blazar_ext.db.api.placement import candidate_trees
from blazar_ext.db.api.placement import provider_base
from blazar_ext import exceptions
from blazar_ext.policies import placement_allocation_candidate as rules
from blazar_ext import policy


def _requests(req, candidates: list, resources: dict) -> list:
    # One resources dict shared by every request: the encoder does not
    # mind, and thousands of copies cost more than the query.
    resources = dict(resources)
    if microversion.at_least(req, '1.34'):
        return [{'allocations': {uuid: {'resources': resources}},
                 'mappings': {'': [uuid]}} for uuid in candidates]
    if microversion.at_least(req, '1.12'):
        return [{'allocations': {uuid: {'resources': resources}}}
                for uuid in candidates]
    return [{'allocations': [{'resource_provider': {'uuid': uuid},
                              'resources': resources}]}
            for uuid in candidates]


def _summaries(req, summaries: dict, resources: dict) -> dict:
    every_class = microversion.at_least(req, '1.27')
    with_traits = microversion.at_least(req, '1.17')
    with_tree = microversion.at_least(req, '1.29')
    out = {}
    for uuid, summary in summaries.items():
        entry = {'resources': summary['resources'] if every_class else {
            name: value for name, value in summary['resources'].items()
            if name in resources}}
        if with_traits:
            entry['traits'] = summary['traits']
        if with_tree:
            entry['parent_provider_uuid'] = summary['parent_provider_uuid']
            entry['root_provider_uuid'] = summary['root_provider_uuid']
        out[uuid] = entry
    return out


def _body_text(req, flat: ac_api.FlatCandidates, resources: dict) -> str:
    """The response (1.27 and later) as JSON text, written column by
    column (text_columns): the same document _requests() and
    _summaries() give, without thousands of nested dicts. Providers share
    their 'resources' and 'traits' values, so each distinct one is
    encoded once.
    """
    count = len(flat.uuids)
    uuids = text_columns.quoted(flat.uuids)
    resources_json = json.dumps(resources)
    requests = ['{"allocations":{', uuids,
                ':{"resources":%s}}' % resources_json]
    if microversion.at_least(req, '1.34'):
        requests += [',"mappings":{"":[', uuids, ']}}']
    else:
        requests.append('}')
    with_tree = microversion.at_least(req, '1.29')
    return text_columns.document(
        '{"allocation_requests":[', text_columns.Items(requests, count),
        '],"provider_summaries":{', _summaries_items(
            flat.uuids, flat.resources, flat.traits,
            flat.parents if with_tree else None, flat.roots), '}}')


def _tree_body_text(req, result: dict) -> str:
    """_tree_body()'s document (1.29 and later) as JSON text.

    Tens of thousands of requests, each a few nested dicts, cost more to
    build and encode than to find. Trees that look alike share a Shape:
    its requests are written once as a template, text between the
    providers' slots, and each run of trees of one Shape is laid out
    column by column (text_columns), a column of quoted uuids per slot.
    """
    with_mappings = microversion.at_least(req, '1.34')
    templates = {}
    texts = []
    for key, run in itertools.groupby(result['trees'],
                                      key=lambda tree: id(tree[1])):
        run = list(run)
        template = templates.get(key)
        if template is None:
            template = templates[key] = _shape_template(run[0][1],
                                                        with_mappings)
        columns = [text_columns.quoted(uuids) for uuids in
                   provider_base.columns([uuids for uuids, _ in run],
                                         len(run[0][0]))]
        if texts:
            texts.append(',')
        texts.append(text_columns.Items(
            [piece if isinstance(piece, str) else columns[piece]
             for piece in template], len(run)))
    return text_columns.document(
        '{"allocation_requests":[', *texts, '],"provider_summaries":{',
        _tree_summaries_items(result['summaries']), '}}')


def _shape_template(shape, with_mappings: bool) -> list:
    """A Shape's requests as JSON text between slots: a str is text, an
    int the slot whose provider's quoted uuid goes there."""
    tokens = []
    for number, (allocation, mappings) in enumerate(shape.requests):
        tokens.append('%s{"allocations":{' % (',' if number else ''))
        for index, (slot, resources) in enumerate(allocation.items()):
            tokens += [',' if index else '', slot,
                       ':{"resources":%s}' % json.dumps(resources)]
        tokens.append('}')
        if with_mappings:
            tokens.append(',"mappings":{')
            for index, (suffix, slots) in enumerate(mappings.items()):
                tokens.append('%s%s:[' % (',' if index else '',
                                          text_columns.quote(suffix)))
                for number_in, slot in enumerate(slots):
                    tokens += [',' if number_in else '', slot]
                tokens.append(']')
            tokens.append('}')
        tokens.append('}')
    template = []
    for token in tokens:
        if isinstance(token, str) and template and isinstance(
                template[-1], str):
            template[-1] += token
        else:
            template.append(token)
    return template


def _tree_summaries_items(summaries: list) -> text_columns.Items:
    """The (uuid, resources, traits, parent uuid, root uuid) summaries as
    JSON text (1.29 and later)."""
    if not summaries:
        return text_columns.Items([''], 0)
    return _summaries_items(*provider_base.columns(summaries, 5))


def _summaries_items(uuids, resources, traits, parents=None,
                     roots=None) -> text_columns.Items:
    """Provider summaries (1.27 and later: every class) as JSON text,
    column by column (text_columns), each shared value encoded
    once; with parents (1.29 and later), parent and root uuids too."""
    pieces = ['', text_columns.quoted(uuids), ':{"resources":',
              _encoded_column(resources), ',"traits":',
              _encoded_column(traits)]
    if parents is not None:
        pieces += [',"parent_provider_uuid":', text_columns.nullable(parents),
                   ',"root_provider_uuid":', text_columns.quoted(roots)]
    pieces.append('}')
    return text_columns.Items(pieces, len(uuids))


def _encoded_column(values) -> list:
    """The JSON of each of ``values``, encoded once per shared object."""
    keys = list(map(id, values))
    # The distinct objects by identity, built in C (no Python-level
    # call per value).
    texts = {key: json.dumps(value)
             for key, value in dict(zip(keys, values)).items()}
    return list(map(texts.__getitem__, keys))


def _tree_body(req, result: dict, wanted: set) -> dict:
    """Allocation requests spread over providers, with their mappings."""
    requests = []
    used = set()
    expanded = candidate_trees.expanded
    for uuids, shape in result['trees']:
        for allocations, mappings in expanded(uuids, shape):
            used.update(allocations)
            if microversion.at_least(req, '1.12'):
                request = {'allocations': {
                    uuid: {'resources': resources}
                    for uuid, resources in allocations.items()}}
            else:
                request = {'allocations': [
                    {'resource_provider': {'uuid': uuid},
                     'resources': resources}
                    for uuid, resources in allocations.items()]}
            if microversion.at_least(req, '1.34'):
                request['mappings'] = mappings
            requests.append(request)
    summaries = ac_api.summaries_by_uuid(result['summaries'])
    if not microversion.at_least(req, '1.29'):
        # Before nested awareness, only the providers the requests use.
        summaries = {u: s for u, s in summaries.items() if u in used}
    return {'allocation_requests': requests,
            'provider_summaries': _summaries(req, summaries, wanted)}


def _get(context, request):
    groups = request.groups
    flat = None
    if len(groups) == 1:
        # Used only when the one unnamed group needs no trees.
        group = groups[0]
        flat = {'resources': group.resources, 'limit': request.limit,
                'required': group.required or None,
                'root_required': request.root_required,
                'member_of': group.member_of,
                'forbidden_aggregates': group.forbidden_aggregates,
                'in_tree': group.in_tree}
    return ac_api.get_any_candidates(
        context, groups, flat, request.group_policy, request.root_required,
        request.same_subtrees, request.limit,
        nested_aware=request.nested_aware)


@microversion.version_range('1.10')
def list_candidates(req):
    """Trees (or single providers) that can satisfy the request groups."""
    context = wsgi_util.context(req)
    policy.authorize(context, rules.LIST)
    params = wsgi_util.query(req, query_schemas.ALLOCATION_CANDIDATES_QUERY)
    request = candidate_request.parse(req, params)
    with gc_pause.paused():
        return _respond(req, context, request)


def _respond(req, context, request):
    try:
        result = _get(context, request)
    except exceptions.TraitNotFound as exc:
        raise errors.HTTPError(400, str(exc))
    except exceptions.InvalidProviderRequest as exc:
        raise errors.HTTPError(400, str(exc))
    wanted = {name for g in request.groups for name in g.resources}
    if not isinstance(result, ac_api.FlatCandidates):
        if microversion.at_least(req, '1.29'):
            return wsgi_util.json_response(req, _tree_body_text(req, result))
        return wsgi_util.json_response(req, _tree_body(req, result, wanted))
    resources = request.groups[0].resources
    if microversion.at_least(req, '1.27'):
        return wsgi_util.json_response(req, _body_text(req, result,
                                                       resources))
    return wsgi_util.json_response(req, {
        'allocation_requests': _requests(req, result.uuids, resources),
        'provider_summaries': _summaries(req, result.summaries(),
                                         resources)})
