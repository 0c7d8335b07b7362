"""GET /v1/os-hosts/availability through the whole service."""

import datetime
import urllib.parse

from oslo_utils import timeutils

from blazar_ext.tests import base
from blazar_ext.tests import fixtures

host_reservation = base.host_reservation
FMT = base.FMT


def _at(minutes: int) -> str:
    base = timeutils.utcnow().replace(second=0, microsecond=0)
    return (base + datetime.timedelta(minutes=minutes)).strftime(FMT)


class TestHostAvailability(base.HostProviderTestCase):

    def setUp(self):
        super().setUp()
        # One "now" for the whole test: dates computed before and after a
        # minute turns must agree.
        timeutils.set_time_override(timeutils.utcnow())
        self.addCleanup(timeutils.clear_time_override)
        self.start, self.end = _at(60), _at(60 + 600)

    def availability(self, expect=200, headers=None, **params) -> dict:
        query = {'start': self.start, 'end': self.end}
        query.update(params)
        resp = self.request('GET', '/v1/os-hosts/availability?'
                            + urllib.parse.urlencode(query, doseq=True),
                            headers=headers)
        self.assertEqual(expect, resp.status, resp.text)
        if expect != 200:
            return resp.json()
        return resp.json()['availability']

    def test_empty_hosts_all_free(self):
        self.add_host('h1')
        self.add_host('h2')
        found = self.availability(count=2, duration=60)
        self.assertEqual(2, found['matching_hosts'])
        self.assertEqual([{'start': self.start, 'end': self.end,
                           'hosts': 2}], found['free_hosts'])
        self.assertEqual({'start': self.start, 'end': _at(120)},
                         found['earliest'])
        self.assertEqual(60, found['duration'])
        self.assertEqual(2, found['count'])

    def test_leases_make_hosts_busy(self):
        self.add_host('h1')
        self.add_host('h2')
        self.create(name='a', start=_at(60), end=_at(180))
        self.create(name='b', start=_at(120), end=_at(240))
        found = self.availability(count=2, duration=60)
        self.assertEqual(
            [{'start': self.start, 'end': _at(120), 'hosts': 1},
             {'start': _at(120), 'end': _at(180), 'hosts': 0},
             {'start': _at(180), 'end': _at(240), 'hosts': 1},
             {'start': _at(240), 'end': self.end, 'hosts': 2}],
            found['free_hosts'])
        self.assertEqual([{'start': _at(240), 'end': self.end}],
                         found['slots'])
        self.assertEqual({'start': _at(240), 'end': _at(300)},
                         found['earliest'])
        # The earliest slot is one the API accepts.
        self.create(name='c', start=found['earliest']['start'],
                    end=found['earliest']['end'],
                    reservations=[host_reservation(min=2, max=2)])

    def test_cleaning_time_widens_busy_time(self):
        self.conf.set_override('cleaning_time', 30, group='manager')
        self.add_host('h1')
        self.create(name='a', start=_at(60), end=_at(120))
        found = self.availability(duration=60)
        self.assertEqual({'start': _at(150), 'end': _at(210)},
                         found['earliest'])

    def test_too_many_hosts_asked_is_no_slot(self):
        self.add_host('h1')
        found = self.availability(count=2)
        self.assertEqual([], found['slots'])
        self.assertIsNone(found['earliest'])

    def test_properties_and_traits_filter_hosts(self):
        self.add_host('small', vcpus=4, gpu='false')
        self.add_host('big', vcpus=64, gpu='true')
        self.add_host('gpu-avx', vcpus=64, gpu='true')
        self.set_traits('gpu-avx', 'CUSTOM_GPU')
        self.assertEqual(2, self.availability(
            resource_properties='[">=", "$vcpus", "32"]')['matching_hosts'])
        self.assertEqual(1, self.availability(
            resource_properties='["==", "$gpu", "true"]',
            traits='!CUSTOM_GPU')['matching_hosts'])
        self.assertEqual(1, self.availability(
            traits=['CUSTOM_GPU'])['matching_hosts'])

    def test_disabled_or_unreservable_hosts_do_not_count(self):
        self.add_host('h1')
        host = self.add_host('h2')
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'reservable': False})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(1, self.availability()['matching_hosts'])

    def test_user_may_ask_but_not_about_private_capabilities(self):
        self.add_host('h1', secret_rack='r1')
        user = fixtures.user_headers()
        self.assertEqual(1, self.availability(headers=user)
                         ['matching_hosts'])
        body = self.availability(
            expect=400, headers=user,
            resource_properties='["==", "$secret_rack", "r1"]')
        self.assertNotIn('r1', body['error_message'])
        self.assertEqual(1, self.availability(
            resource_properties='["==", "$secret_rack", "r1"]')
            ['matching_hosts'])

    def test_bad_input_is_400(self):
        self.add_host('h1')
        cases = [
            ({'start': 'tomorrow'}, 'start'),
            ({'end': self.start}, 'end must be'),
            ({'count': '0'}, 'count must be an integer'),
            ({'count': 'x'}, 'count must be an integer'),
            ({'duration': '601'}, 'duration must be an integer from 1 '
                                  'to 600'),
            ({'traits': 'lower'}, 'traits'),
            ({'traits': 'CUSTOM_NOPE'}, 'CUSTOM_NOPE'),
            ({'resource_properties': '["==", "$vcpus"'},
             'resource_properties'),
            ({'color': 'red'}, 'unknown query parameter(s): color'),
            ({'count': ['1', '2']}, 'count may be given once'),
            ({'end': '2999-01-01 00:00'}, 'at most 732 days'),
        ]
        for params, message in cases:
            body = self.availability(expect=400, **params)
            self.assertIn(message, body['error_message'], params)
        resp = self.request('GET', '/v1/os-hosts/availability?end=%s'
                            % urllib.parse.quote(self.end))
        self.assertEqual(400, resp.status)
        self.assertIn('start is required', resp.json()['error_message'])

    def test_start_now(self):
        self.add_host('h1')
        found = self.availability(start='now', duration=30)
        self.assertEqual(_at(0), found['earliest']['start'])
