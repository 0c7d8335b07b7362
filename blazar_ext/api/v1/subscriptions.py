"""/v1/subscriptions: webhooks for the lifecycle events of a project's
leases (or, for admins, of every project's).

Subscriptions are not reservation state: the API writes them itself.
The secret signs deliveries and is never shown.
"""

from oslo_config import cfg
import pecan
from pecan import rest

from blazar_ext.api.v1.schemas import subscription as schema
from blazar_ext.api.v1 import views
from blazar_ext.api import validation
from blazar_ext.db.api import outbox as outbox_api
from blazar_ext.db.api import subscription as subscription_api
from blazar_ext import exceptions
from blazar_ext.notifications import catalog
from blazar_ext.notifications import targets
from blazar_ext.policies import subscriptions as subscription_policies
from blazar_ext import policy

CONF = cfg.CONF

VIEW = ('id', 'project_id', 'user_id', 'url', 'events', 'lead_times',
        'created_at', 'updated_at')
DELIVERY_VIEW = ('id', 'event_id', 'event_type', 'subject', 'status',
                 'attempts', 'last_status_code', 'last_error',
                 'next_attempt_at', 'delivered_at', 'created_at')
ATTEMPT_VIEW = ('attempted_at', 'status_code', 'error', 'duration_ms')
_TIMES = ('created_at', 'updated_at', 'next_attempt_at', 'delivered_at',
          'attempted_at')


def _view(values: dict, fields: tuple) -> dict:
    body = {k: values.get(k) for k in fields}
    for key in _TIMES:
        if key in body:
            body[key] = views.timestamp(body[key])
    return body


def subscription_view(values: dict) -> dict:
    body = _view(values, VIEW)
    body['all_projects'] = values['project_id'] is None
    return body


def _secret(values: dict) -> None:
    """The secret's checks, whose messages never quote it."""
    if 'secret' not in values:
        return
    secret = values['secret']
    if (not isinstance(secret, str) or
            not schema.SECRET_MIN <= len(secret) <= schema.SECRET_MAX):
        raise exceptions.Invalid(
            reason="'secret' must be a string of %d to %d characters"
                   % (schema.SECRET_MIN, schema.SECRET_MAX))


def _checked(values, body_schema: dict) -> dict:
    """The body, validated: schema, secret, event names, URL target."""
    if isinstance(values, dict):
        _secret(values)
        validation.validate(body_schema, {k: v for k, v in values.items()
                                          if k != 'secret'})
    else:
        validation.validate(body_schema, values)
    unknown = [e for e in values.get('events', ())
               if e not in catalog.EVENTS]
    if unknown:
        raise exceptions.Invalid(
            reason="'events': unknown event %s (known: %s)" % (
                ', '.join(repr(exceptions.cut(e)) for e in unknown),
                ', '.join(catalog.names())))
    if 'url' in values:
        targets.check(values['url'],
                      CONF.notifications.allow_private_targets)
    return values


def _get_authorized(context, subscription_id: str, rule: str) -> dict:
    found = subscription_api.subscription_get(context, subscription_id)
    try:
        policy.authorize(context, rule, {'project_id': found['project_id'],
                                         'user_id': found['user_id']})
    except exceptions.Forbidden:
        # Another project's subscription is not shown to exist.
        raise exceptions.SubscriptionNotFound(subscription=subscription_id)
    return found


class DeliveriesController(rest.RestController):
    """/v1/subscriptions/{subscription_id}/deliveries"""

    @pecan.expose('json')
    def get_all(self, subscription_id, **_query):
        context = pecan.request.context
        _get_authorized(context, subscription_id,
                        subscription_policies.GET_DELIVERIES)
        found = outbox_api.deliveries_list(context, subscription_id)
        return {'deliveries': [dict(
            _view(d, DELIVERY_VIEW),
            attempt_log=[_view(a, ATTEMPT_VIEW) for a in d['attempt_log']])
            for d in found]}


class SubscriptionsController(rest.RestController):

    deliveries = DeliveriesController()

    @pecan.expose('json')
    def get_all(self, **_query):
        context = pecan.request.context
        policy.authorize(context, subscription_policies.GET)
        every = policy.authorize(context, subscription_policies.ALL_PROJECTS,
                                 do_raise=False)
        return {'subscriptions': [
            subscription_view(s) for s in subscription_api.subscription_list(
                context, context.project_id, all_projects=every)]}

    @pecan.expose('json')
    def get_one(self, subscription_id):
        context = pecan.request.context
        return {'subscription': subscription_view(_get_authorized(
            context, subscription_id, subscription_policies.GET))}

    @pecan.expose('json')
    def post(self):
        context = pecan.request.context
        policy.authorize(context, subscription_policies.POST)
        values = validation.request_json(pecan.request)
        if isinstance(values, dict) and 'secret' not in values:
            raise exceptions.Invalid(reason='Missing parameter secret')
        values = _checked(values, schema.CREATE)
        if values.pop('all_projects', False):
            policy.authorize(context, subscription_policies.ALL_PROJECTS)
            values['project_id'] = None
        else:
            values['project_id'] = context.project_id
        values.setdefault('lead_times', schema.DEFAULT_LEAD_TIMES)
        values['user_id'] = context.user_id
        created = subscription_api.subscription_create(context, values)
        pecan.response.status = 201
        return {'subscription': subscription_view(created)}

    @pecan.expose('json')
    def patch(self, subscription_id):
        context = pecan.request.context
        _get_authorized(context, subscription_id, subscription_policies.PATCH)
        values = _checked(validation.request_json(pecan.request),
                          schema.UPDATE)
        if not values:
            raise exceptions.Invalid(reason='nothing to change: give url, '
                                            'events, lead_times or secret')
        return {'subscription': subscription_view(
            subscription_api.subscription_update(context, subscription_id,
                                                 values))}

    @pecan.expose(content_type='application/json')
    def delete(self, subscription_id):
        context = pecan.request.context
        _get_authorized(context, subscription_id,
                        subscription_policies.DELETE)
        subscription_api.subscription_delete(context, subscription_id)
        pecan.response.status = 204
        return ''
