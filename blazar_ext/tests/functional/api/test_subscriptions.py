"""/v1/subscriptions: the API (deliveries: test_webhooks)."""

from blazar_ext.tests import base

SECRET = 's3cret-s3cret-s3cret'
MEMBER = {'X-User-Id': 'bob', 'X-Project-Id': 'demo',
          'X-Roles': 'member,reader'}
OTHER = {'X-User-Id': 'eve', 'X-Project-Id': 'other',
         'X-Roles': 'member,reader'}


class TestSubscriptionsAPI(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('allow_private_targets', True,
                               group='notifications')

    def post(self, body, headers=MEMBER, expect=201):
        resp = self.request('POST', '/v1/subscriptions', body,
                            headers=headers, token=None)
        self.assertEqual(expect, resp.status, resp.text)
        self.assertNotIn(SECRET, resp.text)
        return resp

    def listed(self, headers=MEMBER) -> list:
        resp = self.request('GET', '/v1/subscriptions', headers=headers,
                            token=None)
        self.assertEqual(200, resp.status, resp.text)
        self.assertNotIn(SECRET, resp.text)
        return resp.json()['subscriptions']

    def test_create_show_update_delete(self):
        created = self.post({'url': 'https://example.com/hook',
                             'events': ['lease.created', 'lease.ending_soon'],
                             'secret': SECRET}).json()['subscription']
        self.assertEqual('demo', created['project_id'])
        self.assertEqual([3600], created['lead_times'])
        self.assertFalse(created['all_projects'])
        self.assertNotIn('secret', created)
        path = '/v1/subscriptions/%s' % created['id']
        shown = self.request('GET', path, headers=MEMBER, token=None)
        self.assertEqual(created, shown.json()['subscription'])
        changed = self.request('PATCH', path, {
            'lead_times': [600, 86400], 'secret': SECRET + 'x'},
            headers=MEMBER, token=None)
        self.assertEqual(200, changed.status, changed.text)
        self.assertNotIn(SECRET, changed.text)
        self.assertEqual([600, 86400],
                         changed.json()['subscription']['lead_times'])
        self.assertEqual([created['id']], [s['id'] for s in self.listed()])
        # Another project sees nothing of it.
        self.assertEqual([], self.listed(OTHER))
        self.assertEqual(404, self.request('GET', path, headers=OTHER,
                                           token=None).status)
        self.assertEqual(404, self.request('DELETE', path, headers=OTHER,
                                           token=None).status)
        deliveries = self.request('GET', path + '/deliveries',
                                  headers=MEMBER, token=None)
        self.assertEqual({'deliveries': []}, deliveries.json())
        self.assertEqual(204, self.request('DELETE', path, headers=MEMBER,
                                           token=None).status)
        self.assertEqual(404, self.request('GET', path, headers=MEMBER,
                                           token=None).status)

    def test_all_projects_is_for_admins(self):
        body = {'url': 'http://example.com/', 'events': ['lease.created'],
                'secret': SECRET, 'all_projects': True}
        self.post(body, expect=403)
        created = self.request('POST', '/v1/subscriptions', body)
        self.assertEqual(201, created.status, created.text)
        self.assertTrue(created.json()['subscription']['all_projects'])
        self.assertEqual([], self.listed())

    def test_bad_input_is_a_400_naming_it_and_stores_nothing(self):
        self.conf.set_override('allow_private_targets', False,
                               group='notifications')
        good = {'url': 'https://93.184.215.14/hook',
                'events': ['lease.created'], 'secret': SECRET}
        for change, named in (
                ({'url': 'ftp://example.com/hook'}, "'ftp'"),
                ({'url': 'file:///etc/passwd'}, "'file'"),
                ({'url': 'http://127.0.0.1:8080/'}, '127.0.0.1'),
                ({'url': 'http://10.1.2.3/'}, '10.1.2.3'),
                ({'url': 'http://169.254.169.254/latest'},
                 '169.254.169.254'),
                ({'url': 'http://[::1]/'}, '::1'),
                ({'events': ['lease.created', 'lease.exploded']},
                 "'lease.exploded'"),
                ({'lead_times': [5]}, 'lead_times'),
                ({'secret': 'short'}, 'secret'),
                ({'colour': 'red'}, 'colour')):
            resp = self.post(dict(good, **change), expect=400)
            self.assertIn(named, resp.json()['error_message']
                          if 'error_message' in resp.json() else resp.text)
        self.assertNotIn('short', self.post(dict(good, secret='short'),
                                            expect=400).text)
        missing = dict(good)
        del missing['secret']
        self.assertIn('secret', self.post(missing, expect=400).text)
        self.assertEqual([], self.listed())

    def test_private_targets_when_allowed(self):
        self.post({'url': 'http://127.0.0.1:9/', 'events': ['lease.ended'],
                   'secret': SECRET})
