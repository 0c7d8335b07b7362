"""virtual:floatingip reservations: floating IPs registered without Neutron.

Runs in the manager. Allocation methods run inside the manager's writer
transaction and raise NotEnoughFloatingIPs (a NotEnoughResources, a 400
as upstream's) to roll it back.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import netutils
from oslo_utils import timeutils

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import floatingip as fip_api
from blazar_ext.db.api import floatingip_reservation as detail_api
from blazar_ext.db.api import healing as healing_api
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext import exceptions
from blazar_ext.plugins import base

LOG = logging.getLogger(__name__)

RESOURCE_TYPE = 'virtual:floatingip'


def _invalid(reason: str) -> exceptions.Invalid:
    return exceptions.Invalid(reason='virtual:floatingip reservation: %s'
                              % reason)


class FloatingIPPlugin(base.DetailTableMixin, base.ResourcePlugin):
    """Registers floating IPs and holds them for reservations."""

    resource_type = RESOURCE_TYPE
    detail_columns = ('network_id', 'amount', 'required_floatingips')
    api_routes = {
        'floatingips': 'blazar_ext.api.v1.floatingips:FloatingIPsController'}
    policy_modules = ('blazar_ext.policies.floatingips',)
    calendar_tab = {'key': 'floatingips', 'label': 'Floating IPs',
                    'column': 'Floating IP', 'noun': 'floating IPs',
                    'path': '/v1/floatingips/calendar'}
    detail_table = detail_api.DETAILS
    resource_operations = ('create', 'delete')
    legacy_rpc = {'create': ('create_floatingip', '1.1', None),
                  'delete': ('delete_floatingip', '1.1', 'floatingip_id')}

    # Registration, service state

    def create_resource(self, context, values: dict) -> dict:
        return {'id': self.create_floatingip(context, values)['id']}

    def delete_resource(self, context, resource_id: str) -> None:
        self.delete_floatingip(context, resource_id)

    def get_resource(self, context, resource_id: str) -> dict:
        return fip_api.floatingip_get(context, resource_id)

    def set_reservable(self, context, resource_id: str, reservable: bool,
                       reason: str | None = None, by: str = base.OPERATOR,
                       only_if_by: str | None = None) -> bool:
        # A floating IP keeps no reason nor who took it out.
        return fip_api.floatingip_set_reservable(context, resource_id,
                                                 reservable)

    def lost_sources(self) -> list:
        return [healing_api.LostSource(
            RESOURCE_TYPE, fip_models.FloatingIPAllocation,
            fip_models.FloatingIP, 'floatingip_id')]

    maintenance_column = 'floatingip_id'

    def hold_for_maintenance(self, session, reservation_id: str,
                             resource_id: str, start: datetime.datetime,
                             end: datetime.datetime) -> str | None:
        spec = self.normalize({'network_id': fip_api.network_of(
            session, resource_id), 'amount': 1})
        allocation_api.allocate_floatingips(session, reservation_id,
                                            [resource_id], start, end)
        return self.add_detail(session, reservation_id, spec)

    def create_floatingip(self, context, values: dict) -> dict:
        address = values['floating_ip_address']
        if not netutils.is_valid_ip(address):
            raise exceptions.Invalid(
                reason='floating_ip_address %r is not an IP address'
                       % address)
        return fip_api.floatingip_create(context, {
            'floating_network_id': values['floating_network_id'],
            'floating_ip_address': address,
            'subnet_id': values.get('subnet_id')})

    def delete_floatingip(self, context, fip_id: str) -> None:
        fip_api.floatingip_delete(context, fip_id, timeutils.utcnow())

    # Reservations

    def normalize(self, request: dict, current: dict | None = None,
                  private_visible: bool = False) -> base.Spec:
        merged = dict(current or {})
        merged.update({k: v for k, v in request.items() if v is not None})
        network_id = merged.get('network_id')
        if not isinstance(network_id, str) or not network_id:
            raise _invalid('network_id is required')
        amount = merged.get('amount', 1)
        if isinstance(amount, str) and amount.strip().isdecimal():
            amount = int(amount)
        # The amount goes to SQL (LIMIT) and to a 32-bit column.
        if isinstance(amount, bool) or not isinstance(amount, int) \
                or not 1 <= amount <= 2 ** 31 - 1:
            raise _invalid('amount must be an integer from 1 to %d, got %r'
                           % (2 ** 31 - 1, merged.get('amount')))
        required = merged.get('required_floatingips') or []
        if isinstance(required, str):
            required = [required]
        if not isinstance(required, list) or not all(
                isinstance(a, str) and netutils.is_valid_ip(a)
                for a in required):
            raise _invalid('required_floatingips must be a list of IP '
                           'addresses')
        required = sorted(set(required))
        if len(required) > amount:
            raise _invalid('required_floatingips lists %d addresses but '
                           'amount is %d' % (len(required), amount))
        # Nothing to parse: the request is its own parsed form.
        return base.Spec({'resource_type': RESOURCE_TYPE,
                          'network_id': network_id, 'amount': amount,
                          'required_floatingips': required})

    def allocate(self, context, session, reservation_id: str,
                 spec: base.Spec, start: datetime.datetime,
                 end: datetime.datetime) -> list:
        """Hold ``amount`` free floating IPs of the network, the required
        addresses among them: one query."""
        return self._hold(session, reservation_id, spec, start, end)

    def _hold(self, session, reservation_id: str, spec: dict,
              start: datetime.datetime, end: datetime.datetime,
              exclude_reservation_id: str | None = None) -> list:
        fip_ids = self._pick(session, spec, start, end,
                             exclude_reservation_id, lock=True)
        allocation_api.allocate_floatingips(
            session, reservation_id, fip_ids, start, end)
        return fip_ids

    def candidates(self, context, session, spec: base.Spec,
                   start: datetime.datetime, end: datetime.datetime,
                   reservation_id: str | None = None) -> list:
        """The floating IPs allocate (or reallocate, given
        ``reservation_id``) would hold now, without holding them: what
        usage enforcement is shown. NotEnoughResources as allocate."""
        return self._pick(session, spec, start, end, reservation_id,
                          lock=False)

    @staticmethod
    def _pick(session, spec: dict, start: datetime.datetime,
              end: datetime.datetime, exclude_reservation_id: str | None,
              lock: bool) -> list:
        rows = allocation_api.floatingip_candidates(
            session, spec['network_id'], spec['required_floatingips'],
            start, end, spec['amount'],
            exclude_reservation_id=exclude_reservation_id, lock=lock)
        addresses = {address for _id, address in rows}
        missing = sorted(set(spec['required_floatingips']) - addresses)
        if missing:
            raise exceptions.NotEnoughFloatingIPs(
                reason='required floating IP(s) %s not registered on network '
                       '%s or not free for the whole lease'
                       % (', '.join(missing), spec['network_id']))
        if len(rows) < spec['amount']:
            raise exceptions.NotEnoughFloatingIPs(
                reason='virtual:floatingip reservation needs %d floating '
                       'IP(s) on network %s free for the whole lease; only '
                       '%d found' % (spec['amount'], spec['network_id'],
                                     len(rows)))
        return [r[0] for r in rows]

    def reallocate(self, context, session, reservation_id: str,
                   spec: base.Spec, start: datetime.datetime,
                   end: datetime.datetime) -> list:
        # Few addresses per reservation: choose afresh, ignoring our own
        # allocations, then replace them.
        allocation_api.release_floatingips(session, reservation_id)
        return self._hold(session, reservation_id, spec, start, end,
                          exclude_reservation_id=reservation_id)

    def load_resources(self, context, resource_ids: list) -> list:
        return fip_api.floatingips_get(context, resource_ids)

    def heal(self, session, reservation: dict, lost: list,
             start: datetime.datetime, end: datetime.datetime) -> dict:
        """Replace the out-of-service floating IPs ``lost`` with free
        ones of the same network over [start, end]; an address the
        request named cannot be replaced (None: its allocation stays)."""
        required = set(reservation.get('required_floatingips') or [])
        addresses = fip_api.addresses_of(session, lost)
        replaceable = [old for old in lost
                       if addresses.get(old) not in required]
        rows = allocation_api.floatingip_candidates(
            session, reservation['network_id'], [], start, end,
            len(replaceable)) if replaceable else []
        replaced = dict(zip(replaceable, [r[0] for r in rows]))
        if replaced:
            allocation_api.release_floatingips(
                session, reservation['id'], list(replaced))
            allocation_api.allocate_floatingips(
                session, reservation['id'], list(replaced.values()), start,
                end)
        return {old: replaced.get(old) for old in lost}

    def on_start(self, context, reservation: dict) -> None:
        LOG.debug('virtual:floatingip reservation %s starts',
                  reservation['id'])

    def on_end(self, context, reservation: dict) -> None:
        LOG.debug('virtual:floatingip reservation %s ends',
                  reservation['id'])
