"""views._LeaseTexts: each lease's JSON text kept by the values it was made
from, never shown for other values."""

import datetime
import json

from oslotest import base

from blazar_ext.api.v1 import views

_T0 = datetime.datetime(2026, 11, 27, 10, 0, 0, 123456)


class _View:
    """A resource plugin's view: shows the detail it is given."""

    @staticmethod
    def view(values: dict) -> dict:
        return {'detail': values.get('detail')}


def _lease(name: str = 'l1', status: str = 'PENDING', **reservation) -> dict:
    """A lease as the database read gives it (naive times)."""
    return {
        'id': 'lease-1', 'name': name, 'user_id': 'u1', 'project_id': 'p1',
        'start_date': _T0, 'end_date': _T0 + datetime.timedelta(hours=1),
        'trust_id': None, 'status': status, 'degraded': False,
        'created_at': _T0, 'updated_at': None,
        'reservations': [dict({
            'id': 'r1', 'lease_id': 'lease-1', 'resource_id': 'x',
            'resource_type': 'physical:host', 'status': 'pending',
            'missing_resources': False, 'resources_changed': False,
            'created_at': _T0, 'updated_at': None}, **reservation)],
        'events': [{'id': 'e1', 'lease_id': 'lease-1',
                    'event_type': 'start_lease', 'time': _T0,
                    'status': 'UNDONE', 'created_at': _T0,
                    'updated_at': None}]}


def _made(values: dict, plugins: dict) -> str:
    return json.dumps(views.lease(values, plugins))


class TestLeaseTexts(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.texts = views._LeaseTexts()
        self.plugins = {'physical:host': _View()}

    def _text(self, values: dict, plugins: dict | None = None) -> str:
        return self.texts.texts([values], plugins or self.plugins)[0]

    def test_text_is_the_views_json(self):
        values = _lease(detail='a')
        self.assertEqual(_made(values, self.plugins), self._text(values))
        self.assertEqual(1, len(self.texts._texts))
        # Kept: asked again, the same text without making it.
        self.assertEqual(_made(values, self.plugins), self._text(values))
        self.assertEqual(1, len(self.texts._texts))

    def test_any_changed_value_is_a_new_text(self):
        self._text(_lease())
        for changed in (_lease(status='ACTIVE'), _lease(name='l2'),
                        _lease(status_reason=None),
                        _lease(detail='b'),
                        dict(_lease(), updated_at=_T0)):
            self.assertEqual(_made(changed, self.plugins),
                             self._text(changed))
        event_done = _lease()
        event_done['events'][0]['status'] = 'DONE'
        self.assertIn('"DONE"', self._text(event_done))
        self.assertEqual(7, len(self.texts._texts))

    def test_same_values_under_other_names_are_other_texts(self):
        # A detail's value under another column name is another key.
        one = _lease(detail='a')
        other = _lease(other='a')
        self.assertIn('"detail": "a"', self._text(one))
        self.assertIn('"detail": null', self._text(other))

    def test_unhashable_value_is_made_each_time_not_kept(self):
        values = _lease(detail=['a', 'b'])
        self.assertEqual(_made(values, self.plugins), self._text(values))
        values['reservations'][0]['detail'].append('c')
        self.assertEqual(_made(values, self.plugins), self._text(values))
        self.assertEqual({}, self.texts._texts)

    def test_other_plugins_start_afresh(self):
        values = _lease(detail='a')
        self.assertIn('"detail": "a"', self._text(values))
        self.assertNotIn('detail', self._text(values, plugins={'x': None}))
        self.assertEqual(1, len(self.texts._texts))

    def test_texts_dropped_past_the_limit(self):
        self.texts.AT_MOST = 3
        for number in range(3):
            self._text(_lease(name='l%d' % number))
        self.assertEqual(3, len(self.texts._texts))
        self._text(_lease(name='l3'))
        self.assertEqual(1, len(self.texts._texts))

    def test_listing_past_the_limit_made_whole_not_kept(self):
        self.texts.AT_MOST = 2
        values = [_lease(name='l%d' % number) for number in range(3)]
        self.assertEqual([_made(one, self.plugins) for one in values],
                         self.texts.texts(values, self.plugins))
        self.assertEqual({}, self.texts._texts)

    def test_listing_body_is_json_dumps_of_the_views(self):
        values = [_lease(detail='a'), dict(_lease(), id='lease-2')]
        self.assertEqual(
            json.dumps({'leases': views.leases(values)}).encode(),
            views.leases_json(values))
        self.assertEqual(json.dumps({'lease': views.lease(values[0])})
                         .encode(), views.lease_json(values[0]))
