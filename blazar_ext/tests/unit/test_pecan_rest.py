"""RestController's arguments, without a URL built per routing step."""

from unittest import mock

from oslotest import base
import pecan
from pecan import core as pecan_core
from pecan import rest

from blazar_ext.api import pecan_rest


class _Things(rest.RestController):

    @pecan.expose('json')
    def get_one(self, thing_id):
        return {}


class TestPecanRest(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        original = rest.RestController._get_args_for_controller
        self.addCleanup(setattr, rest.RestController,
                        '_get_args_for_controller', original)
        pecan_rest.install()

    def test_arguments_after_self_while_a_request_is_bound(self):
        state = mock.Mock(spec=['request'])
        with mock.patch.object(pecan_core, 'state', state):
            self.assertEqual(['thing_id'], _Things()._get_args_for_controller(
                _Things().get_one))
        # Not read to learn it: reading path builds the URL.
        self.assertEqual([], state.request.mock_calls)

    def test_after_self_req_resp_when_no_request_is_bound(self):
        # pecan's own answer when pecan.request is not bound (explicit
        # request and response arguments).
        def explicit(self, req, resp, thing_id):
            pass
        for state in (None, mock.Mock(spec=[])):
            with mock.patch.object(pecan_core, 'state', state):
                self.assertEqual(['thing_id'],
                                 _Things()._get_args_for_controller(explicit))
