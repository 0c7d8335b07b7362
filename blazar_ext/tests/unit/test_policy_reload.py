"""The enforcer looks at policy files once a second, and caches the
argument specs oslo.policy asks for on every check."""

import ast
import inspect
import os
from unittest import mock

import fixtures
from oslo_policy import _checks

from blazar_ext import context
from blazar_ext import policy
from blazar_ext.tests import base


class PolicyReloadTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'policy.yaml')
        self.write('"blazar:oshosts:get": "role:admin"\n')
        policy.init(self.conf)  # registers [oslo_policy]
        self.conf.set_override('policy_file', self.path,
                               group='oslo_policy')
        policy.reset()
        self.addCleanup(policy.reset)
        self.now = 1000.0
        self.useFixture(fixtures.MockPatch(
            'blazar_ext.policy.time.monotonic', side_effect=lambda: self.now))
        self.member = context.RequestContext(user_id='u', project_id='p',
                                             roles=['member'])

    def write(self, text: str) -> None:
        with open(self.path, 'w') as f:
            f.write(text)
        # A new mtime, however fast the test runs.
        self.mtime = getattr(self, 'mtime', 1e9) + 10
        os.utime(self.path, (self.mtime, self.mtime))

    def allowed(self) -> bool:
        return policy.authorize(self.member, 'blazar:oshosts:get',
                                do_raise=False)

    def test_an_edit_takes_effect_after_the_check_interval(self):
        self.assertFalse(self.allowed())
        self.write('"blazar:oshosts:get": "role:member"\n')
        # Within the interval the loaded rules stand: no file was read.
        with mock.patch.object(policy.policy.Enforcer, 'load_rules') as load:
            self.now += policy.RELOAD_CHECK_SECONDS / 2
            self.assertFalse(self.allowed())
        load.assert_not_called()
        self.now += policy.RELOAD_CHECK_SECONDS
        self.assertTrue(self.allowed())

    def test_reset_reloads_at_once(self):
        self.assertFalse(self.allowed())
        self.write('"blazar:oshosts:get": "role:member"\n')
        policy.reset()
        self.assertTrue(self.allowed())


class CheckInspectTest(base.TestCase):

    def test_specs_are_computed_once_per_function(self):
        policy.init(self.conf)
        self.assertIsInstance(_checks.inspect, policy._CheckInspect)
        check = _checks.RoleCheck('role', 'admin')
        with mock.patch.object(inspect, 'getfullargspec',
                               wraps=inspect.getfullargspec) as spec:
            policy._CheckInspect._spec_of.cache_clear()
            first = _checks.inspect.getfullargspec(check.__call__)
            again = _checks.inspect.getfullargspec(
                _checks.RoleCheck('role', 'x').__call__)
        self.assertEqual(1, spec.call_count)
        self.assertEqual(inspect.getfullargspec(check.__call__), first)
        self.assertIs(first, again)
        # Everything else is inspect's own.
        self.assertIs(inspect.isclass, _checks.inspect.isclass)


class CheckAstTest(base.TestCase):

    def test_left_sides_are_parsed_once(self):
        policy.init(self.conf)
        self.assertIsInstance(_checks.ast, policy._CheckAst)
        policy._CheckAst._literal.cache_clear()
        check = _checks.GenericCheck('project_id', '%(project_id)s')
        with mock.patch.object(ast, 'literal_eval',
                               wraps=ast.literal_eval) as parse:
            for _ in range(3):
                self.assertTrue(check({'project_id': 'p'},
                                      {'project_id': 'p'}, None))
                self.assertFalse(check({'project_id': 'q'},
                                       {'project_id': 'p'}, None))
        self.assertEqual(1, parse.call_count)

    def test_literal_left_side_still_compared(self):
        policy.init(self.conf)
        check = _checks.GenericCheck("'member'", '%(role)s')
        self.assertTrue(check({'role': 'member'}, {}, None))
        self.assertFalse(check({'role': 'reader'}, {}, None))
        again = _checks.GenericCheck("'member'", '%(role)s')
        self.assertTrue(again({'role': 'member'}, {}, None))

    def test_malformed_raises_value_error_every_time(self):
        for _ in range(2):
            self.assertRaises(ValueError, policy._CheckAst().literal_eval,
                              'project_id')
