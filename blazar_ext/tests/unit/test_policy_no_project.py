"""Owner rules never match a caller or a resource without a project."""

from blazar_ext import context
from blazar_ext import exceptions
from blazar_ext import policy
from blazar_ext.tests import base


class NoProjectTest(base.TestCase):

    def ctx(self, project_id=None, roles=()):
        return context.RequestContext(user_id='u', project_id=project_id,
                                      roles=list(roles))

    def test_unscoped_caller_is_no_owner(self):
        # The default target is the caller's own project: none here.
        self.assertRaises(exceptions.PolicyNotAuthorized, policy.authorize,
                          self.ctx(), 'blazar:leases:get')
        self.assertRaises(exceptions.PolicyNotAuthorized, policy.authorize,
                          self.ctx(), 'blazar:leases:delete',
                          {'project_id': None, 'user_id': 'x'})
        # Nor does a project caller own a lease without a project.
        self.assertFalse(policy.authorize(
            self.ctx('p1'), 'blazar:leases:get',
            {'project_id': None, 'user_id': 'x'}, do_raise=False))
        # Owners and admins still pass.
        self.assertTrue(policy.authorize(self.ctx('p1'), 'blazar:leases:get',
                                         {'project_id': 'p1'}))
        self.assertTrue(policy.authorize(self.ctx(roles=['admin']),
                                         'blazar:leases:get',
                                         {'project_id': None}))
