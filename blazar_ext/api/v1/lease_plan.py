"""POST /v1/leases/plan: when does a lease request fit?
GET /v1/leases/{lease_id}/extension: how far could a lease be extended?

A search is a read (blazar_ext.manager.plan, straight from the database),
except when two reservations share a pool: its options are then checked
by allocations rolled back, and the manager, the one writer, runs it.
Extension advice asks the manager, which owns the enforcement chain it
must consult.
"""

import pecan
from pecan import rest

from blazar_ext.api import gc_pause
from blazar_ext.api.v1 import hosts as v1_hosts
from blazar_ext.api.v1.schemas import lease_plan as schema
from blazar_ext.api import validation
from blazar_ext.manager import plan
from blazar_ext.plugins import loader
from blazar_ext.policies import lease_plan as plan_policies
from blazar_ext.policies import leases as lease_policies
from blazar_ext import policy
from blazar_ext.rpc import manager_client


class LeasePlanController(rest.RestController):
    """/v1/leases/plan"""

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, plan_policies.PLAN)
        values = validation.request_json(pecan.request)
        validation.validate(schema.PLAN, values)
        with_resources = values.get('with_resources', False)
        if with_resources:
            policy.authorize(context, plan_policies.PLAN_RESOURCES)
        plugins = loader.get()
        request = plan.parse(values, plugins,
                             v1_hosts.show_private(context))
        if plan.shares_a_pool(request):
            return {'options': manager_client.get_client().plan_lease(
                context, values, v1_hosts.show_private(context),
                with_resources)}
        # Tens of thousands of busy intervals read and swept, none of
        # them garbage until the answer is made: the collector's passes
        # over them (and its full ones over the process) cost a fifth of
        # a search at 10,000 hosts.
        with gc_pause.paused():
            options = plan.search(context, plugins, request, with_resources)
        return {'options': [option.view() for option in options]}


class LeaseExtensionController(rest.RestController):
    """/v1/leases/{lease_id}/extension"""

    @pecan.expose('json')
    def get_all(self, lease_id):
        context = pecan.request.context
        lease = loader.get().lease_get(context, lease_id)
        target = {'project_id': lease['project_id'],
                  'user_id': lease['user_id']}
        policy.authorize(context, lease_policies.GET, target)
        policy.authorize(context, plan_policies.EXTENSION, target)
        return {'extension': manager_client.get_client().lease_extension(
            context, lease_id)}
