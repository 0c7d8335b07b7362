"""/v1/lease-series: recurring leases (issue 30).

A series is created through POST /v1/leases with ``recurrence`` (see
``create``): the answer is the first occurrence, as python-blazarclient
expects a lease, with ``series_id``. Reads come from the database; changes
go to the manager over RPC.
"""

from oslo_serialization import jsonutils
import pecan
from pecan import rest

from blazar_ext.api.v1 import hosts as v1_hosts
from blazar_ext.api.v1.schemas import lease_series as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import lease_series as series_api
from blazar_ext.plugins import loader
from blazar_ext.policies import lease_series as series_policies
from blazar_ext import policy
from blazar_ext.rpc import manager_client

_COLUMNS = ('id', 'name', 'user_id', 'project_id', 'recurrence', 'timezone',
            'booking', 'status')


def occurrence_status(occurrence: dict) -> str:
    """The lease's status when one is booked, else why there is none."""
    if occurrence['status'] == series_api.BOOKED:
        return occurrence['lease_status'] or 'DELETED'
    return occurrence['status']


def view(values: dict) -> dict:
    """A series with its occurrences; dates as leases show them, the
    first occurrence's local window in the series' time zone."""
    body = {name: values.get(name) for name in _COLUMNS}
    body['start_date'] = views.timestamp(values['local_start'])
    body['end_date'] = views.timestamp(values['local_end'])
    body['reservations'] = jsonutils.loads(
        values['request'])['reservations']
    body['occurrences'] = [
        {'lease_id': o['lease_id'],
         'start_date': views.timestamp(o['start_date']),
         'end_date': views.timestamp(o['end_date']),
         'status': occurrence_status(o)}
        for o in values['occurrences']]
    body['created_at'] = views.record_time(values.get('created_at'))
    body['updated_at'] = views.record_time(values.get('updated_at'))
    return body


def create(context, values: dict) -> dict:
    """POST /v1/leases with ``recurrence``: the first occurrence booked,
    with series_id (and the dates skipped, booking 'available')."""
    validation.validate(schema.CREATE, values)
    created = manager_client.get_client().create_lease_series(
        context, values, v1_hosts.show_private(context))
    lease = views.lease(loader.get().lease_get(context, created['lease_id']))
    lease['series_id'] = created['series_id']
    lease['skipped'] = created['skipped']
    return lease


def _get_authorized(context, series_id: str, rule: str) -> dict:
    series = series_api.series_get(context, series_id)
    policy.authorize(context, rule, {'project_id': series['project_id'],
                                     'user_id': series['user_id']})
    return series


class LeaseSeriesController(rest.RestController):

    # POST /v1/lease-series/{series_id}/skip {"date": "YYYY-MM-DD"}
    _custom_actions = {'skip': ['POST']}

    @pecan.expose('json')
    def get_all(self):
        context = pecan.request.context
        policy.authorize(context, series_policies.GET)
        project_id = None
        if not policy.authorize(context, series_policies.GET_ALL_PROJECTS,
                                do_raise=False):
            project_id = context.project_id
        return {'lease_series': [view(s) for s in series_api.series_list(
            context, project_id)]}

    @pecan.expose('json')
    def get_one(self, series_id):
        context = pecan.request.context
        return {'lease_series': view(_get_authorized(
            context, series_id, series_policies.GET))}

    @pecan.expose('json')
    def patch(self, series_id):
        context = pecan.request.context
        _get_authorized(context, series_id, series_policies.PATCH)
        values = validation.request_json(pecan.request)
        validation.validate(schema.UPDATE, values)
        result = manager_client.get_client().update_lease_series(
            context, series_id, values, v1_hosts.show_private(context))
        body = view(series_api.series_get(context, series_id))
        body['failed'] = result['failed']
        return {'lease_series': body}

    @pecan.expose('json')
    def skip(self, series_id):
        """Skip the occurrence of one local date."""
        context = pecan.request.context
        _get_authorized(context, series_id, series_policies.SKIP)
        values = validation.request_json(pecan.request)
        validation.validate(schema.SKIP, values)
        manager_client.get_client().skip_lease_series_date(
            context, series_id, values['date'])
        return {'lease_series': view(series_api.series_get(context,
                                                           series_id))}

    @pecan.expose(content_type='application/json')
    def delete(self, series_id):
        context = pecan.request.context
        _get_authorized(context, series_id, series_policies.DELETE)
        manager_client.get_client().delete_lease_series(context, series_id)
        pecan.response.status = 204
        return ''
