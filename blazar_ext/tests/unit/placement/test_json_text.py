"""Large placement lists written as JSON text say what the dicts say.

GET /allocation_candidates (1.27 and later) and GET /resource_providers
write their bodies with one string format per item; these tests hold
that text to the documents the plain dict serializers give, at every
microversion either path serves.
"""

import json

import testtools
import webob

from blazar_ext.api.placement.handlers import allocation_candidate as ac
from blazar_ext.api.placement.handlers import resource_provider as rp
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import text_columns
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import allocation_candidate as ac_db
from blazar_ext.db.api.placement import candidate_trees
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api.placement import resource_provider as rp_db

ROOT = '11111111-1111-1111-1111-111111111111'
CHILD = '22222222-2222-2222-2222-222222222222'
OTHER = '33333333-3333-3333-3333-333333333333'


def _request(version: str, script_name: str = '/placement'):
    req = webob.Request.blank('/x')
    req.script_name = script_name
    req.environ[microversion.ENV_KEY] = microversion.parse(version)
    return req


def _candidates() -> dict:
    shared = {'VCPU': {'capacity': 12, 'used': 3},
              'DISK_GB': {'capacity': 100, 'used': 0}}
    traits = ['HW_CPU_X86_AVX', 'HW_CPU_X86_SSE']
    return {
        'candidates': [ROOT, CHILD, OTHER],
        'summaries': {
            ROOT: {'resources': shared, 'traits': traits,
                   'parent_provider_uuid': None, 'root_provider_uuid': ROOT},
            CHILD: {'resources': {'VCPU': {'capacity': 8, 'used': 8}},
                    'traits': [], 'parent_provider_uuid': ROOT,
                    'root_provider_uuid': ROOT},
            OTHER: {'resources': shared, 'traits': traits,
                    'parent_provider_uuid': None,
                    'root_provider_uuid': OTHER}}}


def _flat(result: dict) -> ac_db.FlatCandidates:
    summaries = [result['summaries'][u] for u in result['candidates']]
    return ac_db.FlatCandidates(
        uuids=result['candidates'],
        parents=[s['parent_provider_uuid'] for s in summaries],
        roots=[s['root_provider_uuid'] for s in summaries],
        resources=[s['resources'] for s in summaries],
        traits=[s['traits'] for s in summaries])


class TestCandidatesText(testtools.TestCase):

    def test_text_is_the_dict_document(self):
        resources = {'VCPU': 1, 'DISK_GB': 5}
        for minor in range(27, microversion.MAX_VERSION.minor + 1):
            req = _request('1.%d' % minor)
            result = _candidates()
            expected = {
                'allocation_requests': ac._requests(
                    req, result['candidates'], resources),
                'provider_summaries': ac._summaries(
                    req, result['summaries'], resources)}
            self.assertEqual(
                expected,
                json.loads(ac._body_text(req, _flat(result),
                                         resources).text()),
                '1.%d' % minor)

    def test_summaries_are_the_columns(self):
        result = _candidates()
        self.assertEqual(result['summaries'], _flat(result).summaries())

    def test_no_candidates(self):
        body = ac._body_text(_request('1.39'),
                             ac_db.FlatCandidates([], [], [], [], []),
                             {'VCPU': 1}).text()
        self.assertEqual({'allocation_requests': [],
                          'provider_summaries': {}}, json.loads(body))


def _tree_result() -> dict:
    vcpu = {'VCPU': 1}
    two_trees = candidate_trees.Shape((
        ({0: vcpu, 1: {'DISK_GB': 10}}, {'': (0, 1), '1': (0,)}),
        ({1: {'DISK_GB': 10}}, {'': (1,), '_A"b{0}': (1,)})))
    alone = candidate_trees.Shape((
        ({0: {'VCPU': 2, 'MEMORY_MB': 512}}, {'_A"b': (0,)}),))
    summaries = [(uuid, summary['resources'], summary['traits'],
                  summary['parent_provider_uuid'],
                  summary['root_provider_uuid'])
                 for uuid, summary in _candidates()['summaries'].items()]
    return {
        'trees': [((CHILD, OTHER), two_trees), ((ROOT,), alone),
                  ((ROOT, OTHER), two_trees)],
        'summaries': summaries}


class TestTreeCandidatesText(testtools.TestCase):

    def test_text_is_the_dict_document(self):
        for minor in range(29, microversion.MAX_VERSION.minor + 1):
            req = _request('1.%d' % minor)
            result = _tree_result()
            expected = ac._tree_body(req, result, {'VCPU', 'DISK_GB'})
            self.assertEqual(expected,
                             json.loads(
                                 ac._tree_body_text(req, result).text()),
                             '1.%d' % minor)

    def test_shapes_fill_in_each_trees_providers(self):
        body = json.loads(ac._tree_body_text(_request('1.39'),
                                             _tree_result()).text())
        self.assertEqual([
            {'allocations': {CHILD: {'resources': {'VCPU': 1}},
                             OTHER: {'resources': {'DISK_GB': 10}}},
             'mappings': {'': [CHILD, OTHER], '1': [CHILD]}},
            {'allocations': {OTHER: {'resources': {'DISK_GB': 10}}},
             'mappings': {'': [OTHER], '_A"b{0}': [OTHER]}},
            {'allocations': {ROOT: {'resources': {'VCPU': 2,
                                                  'MEMORY_MB': 512}}},
             'mappings': {'_A"b': [ROOT]}},
            {'allocations': {ROOT: {'resources': {'VCPU': 1}},
                             OTHER: {'resources': {'DISK_GB': 10}}},
             'mappings': {'': [ROOT, OTHER], '1': [ROOT]}},
            {'allocations': {OTHER: {'resources': {'DISK_GB': 10}}},
             'mappings': {'': [OTHER], '_A"b{0}': [OTHER]}}],
            body['allocation_requests'])
        self.assertEqual([ROOT, CHILD, OTHER],
                         list(body['provider_summaries']))

    def test_runs_of_one_shape(self):
        result = _tree_result()
        two, alone = result['trees'][0][1], result['trees'][1][1]
        result['trees'] = [((CHILD, OTHER), two), ((ROOT, CHILD), two),
                           ((OTHER,), alone), ((CHILD,), alone),
                           ((ROOT, OTHER), two)]
        for minor in (29, 33, 34, 39):
            req = _request('1.%d' % minor)
            self.assertEqual(ac._tree_body(req, result, set()),
                             json.loads(
                                 ac._tree_body_text(req, result).text()),
                             '1.%d' % minor)

    def test_before_nested_awareness_only_used_providers(self):
        result = _tree_result()
        result['trees'] = result['trees'][1:2]
        body = ac._tree_body(_request('1.28'), result, {'VCPU'})
        self.assertEqual({ROOT: {'resources': {
            'VCPU': {'capacity': 12, 'used': 3},
            'DISK_GB': {'capacity': 100, 'used': 0}},
            'traits': ['HW_CPU_X86_AVX', 'HW_CPU_X86_SSE']}},
            body['provider_summaries'])

    def test_no_requests(self):
        body = ac._tree_body_text(_request('1.39'),
                                  {'trees': [], 'summaries': []}).text()
        self.assertEqual({'allocation_requests': [],
                          'provider_summaries': {}}, json.loads(body))


def _rows(providers: list) -> rp_db.ProviderColumns:
    return rp_db.ProviderColumns(*(
        [p[key] for p in providers]
        for key in ('uuid', 'name', 'generation', 'parent_provider_uuid',
                    'root_provider_uuid')))


class TestProviderListText(testtools.TestCase):

    def _check(self, providers: list) -> None:
        for minor in range(microversion.MAX_VERSION.minor + 1):
            for script_name in ('/placement', '/a%20b/placement'):
                req = _request('1.%d' % minor, script_name)
                expected = {'resource_providers': [
                    rp.serialize(req, p) for p in providers]}
                self.assertEqual(
                    expected,
                    json.loads(rp._list_text(req, _rows(providers)).text()),
                    '1.%d %s' % (minor, script_name))

    def test_text_is_the_serialized_list(self):
        self._check([
            {'uuid': ROOT, 'name': 'r\u00e9seau "1" \\ %s', 'generation': 4,
             'parent_provider_uuid': None, 'root_provider_uuid': ROOT},
            {'uuid': CHILD, 'name': 'child', 'generation': 0,
             'parent_provider_uuid': ROOT, 'root_provider_uuid': ROOT}])

    def test_uuids_that_need_escaping(self):
        # Not as the API makes them, but a column may hold them.
        odd = 'a"b\\c'
        self._check([
            {'uuid': odd, 'name': 'odd', 'generation': 1,
             'parent_provider_uuid': None, 'root_provider_uuid': odd},
            {'uuid': OTHER, 'name': 'child', 'generation': 2,
             'parent_provider_uuid': odd, 'root_provider_uuid': odd}])

    def test_one_provider_and_none(self):
        self._check([{'uuid': ROOT, 'name': 'one', 'generation': 0,
                      'parent_provider_uuid': None,
                      'root_provider_uuid': ROOT}])
        self._check([])

    def test_text_is_ascii_as_the_encoder_writes_it(self):
        text = rp._list_text(_request('1.39'), _rows([
            {'uuid': ROOT, 'name': 'r\u00e9seau', 'generation': 0,
             'parent_provider_uuid': None,
             'root_provider_uuid': ROOT}])).text()
        self.assertIn('"r\\u00e9seau"', text)


class TestTextColumns(testtools.TestCase):

    def test_items_interleaves_text_and_columns(self):
        self.assertEqual(
            '[a1x],[b2y],[c3z]',
            text_columns.Items(['[', ['a', 'b', 'c'], '', ['1', '2', '3'],
                                '', ['x', 'y', 'z'], ']'], 3).text())

    def test_adjacent_texts_are_laid_out_as_one(self):
        items = text_columns.Items(['<', ['a', 'b'], '|', '|', ['1', '2'],
                                    '>', ''], 2)
        self.assertEqual(['<', ['a', 'b'], '||', ['1', '2'], '>'],
                         items.pieces)
        self.assertEqual('<a||1>,<b||2>', items.text())

    def test_one_item_and_none(self):
        self.assertEqual('<v>',
                         text_columns.Items(['<', ['v'], '>'], 1).text())
        self.assertEqual('', text_columns.Items(['<', [], '>'], 0).text())

    def test_quoted_and_nullable(self):
        self.assertEqual(['"a\\"b"', '"\\u00e9"'],
                         text_columns.quoted(['a"b', '\u00e9']))
        self.assertEqual(['null', '"x"'], text_columns.nullable([None, 'x']))

    def test_columns_transposes_rows(self):
        self.assertEqual([['a', 'b'], [1, 2]],
                         provider_base.columns([('a', 1), ('b', 2)], 2))
        self.assertEqual([[], []], provider_base.columns([], 2))

    def test_items_over_several_batches(self):
        count = 2 * text_columns._BATCH + 7
        names = ['n%d' % i for i in range(count)]
        items = text_columns.Items(['{"a":"', names, '","b":"', names,
                                    '"}'], count)
        expected = ','.join('{"a":"%s","b":"%s"}' % (n, n) for n in names)
        self.assertEqual(expected, items.text())
        self.assertEqual(len(expected), len(items))
        self.assertEqual(3, len(list(items.batches())))
        self.assertEqual(0, len(text_columns.Items(['<', [], '>'], 0)))

    def test_a_large_body_is_sent_in_small_chunks(self):
        # Megabytes, as a listing of thousands of providers: no chunk of
        # that size, so none needs fresh pages from the kernel.
        count = 40000
        uuids = ['%036d' % i for i in range(count)]
        body = text_columns.document(
            '{"l":[', text_columns.Items(['"', uuids, '"'], count), ']}')
        chunks = list(body)
        self.assertGreater(len(chunks), 10)
        self.assertTrue(all(isinstance(chunk, bytes) for chunk in chunks))
        self.assertLess(max(map(len, chunks)), 4 * text_columns._CHUNK)
        self.assertEqual(uuids, json.loads(b''.join(chunks))['l'])
        self.assertEqual(len(b''.join(chunks)), len(body))
        self.assertEqual(b''.join(chunks).decode(), body.text())

    def test_json_response_of_a_body(self):
        body = text_columns.document(
            '{"l":[', text_columns.Items(['', ['1', '2'], ''], 2), ']}')
        resp = wsgi_util.json_response(_request('1.39'), body)
        self.assertEqual({'l': [1, 2]}, resp.json)
        self.assertEqual(len(b'{"l":[1,2]}'), resp.content_length)
        self.assertEqual('application/json', resp.content_type)
