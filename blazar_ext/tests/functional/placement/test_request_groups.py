"""GET /allocation_candidates: the number of request groups is bounded by
[placement_api] max_request_groups, a 400 in Placement's shape above it."""

from blazar_ext.conf import placement_api
from blazar_ext.tests import base

LATEST = {'OpenStack-API-Version': 'placement 1.39'}


def _groups(count: int) -> str:
    """``count`` suffixed groups (each needs group_policy, given)."""
    return '&'.join(['group_policy=none'] + [
        'resources%d=VCPU:1&required%d=HW_CPU_X86_AVX' % (i, i)
        for i in range(1, count + 1)])


class TestRequestGroupBound(base.APITestCase):

    def _get(self, query: str):
        return self.request('GET', '/placement/allocation_candidates?'
                            + query, headers=LATEST)

    def test_default(self):
        self.assertEqual(128, placement_api.MAX_REQUEST_GROUPS)
        self.assertEqual(128, self.conf.placement_api.max_request_groups)

    def test_at_the_bound_is_answered(self):
        self.conf.set_override('max_request_groups', 3,
                               group='placement_api')
        resp = self._get(_groups(3))
        self.assertEqual(200, resp.status, resp.text)
        # The unsuffixed group counts as one.
        resp = self._get('resources=VCPU:1&' + _groups(2))
        self.assertEqual(200, resp.status, resp.text)

    def test_above_the_bound_is_400(self):
        self.conf.set_override('max_request_groups', 3,
                               group='placement_api')
        resp = self._get('resources=VCPU:1&' + _groups(3))
        self.assertEqual(400, resp.status, resp.text)
        error = resp.json()['errors'][0]
        self.assertEqual('placement.query.bad_value', error['code'])
        self.assertEqual(
            'The request has 4 request groups (resources, required, '
            'member_of or in_tree with distinct suffixes); at most 3 are '
            'accepted ([placement_api] max_request_groups).',
            error['detail'])

    def test_thousands_of_groups_are_refused_by_default(self):
        resp = self._get(_groups(2000))
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('The request has 2000 request groups',
                      resp.json()['errors'][0]['detail'])
