"""The Placement and metadefs APIs answer 503 in their own error shape,
not 500, when the database connection is lost (a Galera node failing
over, a restart), as /v1 does: the client may try again."""

from unittest import mock

from oslo_db import exception as db_exc

from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.tests import base

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}


def lost(*args, **kwargs):
    raise db_exc.DBConnectionError(Exception(
        "(2013, 'Lost connection to MySQL server during query')"))


class TestDatabaseUnreachable(base.APITestCase):

    def test_placement_answers_503_with_its_error_shape(self):
        with mock.patch.object(trait_api, 'list_traits', lost):
            resp = self.request('GET', '/placement/traits',
                                headers=PLACEMENT)
        self.assertEqual(503, resp.status, resp.text)
        self.assertEqual(503, resp.json()['errors'][0]['status'])
        self.assertIn('try again', resp.json()['errors'][0]['detail'])

    def test_metadefs_answers_503_with_its_error_shape(self):
        with mock.patch.object(ns_api, 'namespace_list', lost):
            resp = self.request('GET', '/v2/metadefs/namespaces')
        self.assertEqual(503, resp.status, resp.text)
        self.assertEqual(503, resp.json()['error']['code'])

    def test_other_errors_stay_500(self):
        with mock.patch.object(trait_api, 'list_traits',
                               side_effect=RuntimeError('bug')):
            resp = self.request('GET', '/placement/traits',
                                headers=PLACEMENT)
        self.assertEqual(500, resp.status, resp.text)
