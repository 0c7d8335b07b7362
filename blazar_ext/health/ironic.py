"""The ``ironic`` health source: bare-metal nodes.

A host (its name is the node's name or UUID) is down when its node is in
maintenance, in a failed or unmanaged provision state, or has no usable
power state. One paginated listing per check. A host Ironic does not
know keeps its state.
"""

from urllib import parse

from blazar_ext.drivers import client
from blazar_ext import health

# Fields filtering (1.8).
API_VERSION = '1.8'
FIELDS = 'uuid,name,maintenance,maintenance_reason,provision_state,' \
         'power_state'
# Provision states a node cannot serve a lease from.
BAD_PROVISION_STATES = frozenset((
    'error', 'deploy failed', 'clean failed', 'inspect failed',
    'rescue failed', 'unrescue failed', 'adopt failed', 'service failed',
    'enroll', 'manageable', 'verifying'))
BAD_POWER_STATES = frozenset((None, 'error'))


class IronicHealth(client.ServiceClient, health.HealthSource):

    name = 'ironic'

    SERVICE = 'ironic'

    def nodes(self) -> list:
        """Every node, following the ``next`` links."""
        url = '/v1/nodes?' + parse.urlencode({'fields': FIELDS})
        nodes = []
        while url:
            page = client.get_json(
                self.api, url, 'ironic nodes',
                headers={'X-OpenStack-Ironic-API-Version': API_VERSION})
            nodes.extend(page.get('nodes', []))
            url = page.get('next')
        return nodes

    def check(self, hosts: list) -> dict:
        by_key = {}
        for node in self.nodes():
            by_key[node.get('uuid')] = node
            if node.get('name'):
                by_key[node['name']] = node
        result = {}
        for host in hosts:
            node = by_key.get(host['name'])
            if node is not None:
                result[host['id']] = _problem(node)
        return result


def _problem(node: dict) -> str | None:
    if node.get('maintenance'):
        return 'ironic: maintenance%s' % (
            ' (%s)' % node['maintenance_reason']
            if node.get('maintenance_reason') else '')
    if node.get('provision_state') in BAD_PROVISION_STATES:
        return 'ironic: provision state %s' % node['provision_state']
    if node.get('power_state') in BAD_POWER_STATES:
        return 'ironic: power state %s' % node.get('power_state')
    return None
