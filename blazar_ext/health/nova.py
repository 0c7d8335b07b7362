"""The ``nova`` health source: compute services and hypervisors.

A host is down when its hypervisor is down or disabled, or its
nova-compute service is down, disabled or forced down. Two requests per
check, whatever the number of hosts. A host Nova does not know keeps its
state: a misconfigured endpoint must not take every host out.
"""

from blazar_ext.drivers import client
from blazar_ext import health


class NovaHealth(client.ServiceClient, health.HealthSource):

    name = 'nova'

    SERVICE = 'nova'

    def check(self, hosts: list) -> dict:
        services = client.get_json(
            self.api, '/os-services?binary=nova-compute',
            'nova compute services')['services']
        hypervisors = client.get_json(
            self.api, '/os-hypervisors/detail',
            'nova hypervisors')['hypervisors']
        by_service = {s['host']: s for s in services}
        by_name = {h['hypervisor_hostname']: h for h in hypervisors}
        result = {}
        for host in hosts:
            hypervisor = by_name.get(host['name'])
            service_host = (hypervisor or {}).get('service', {}).get(
                'host') or host.get('service_name') or host['name']
            service = by_service.get(service_host)
            if hypervisor is None and service is None:
                continue
            result[host['id']] = _problem(hypervisor, service)
        return result


def _problem(hypervisor: dict | None, service: dict | None) -> str | None:
    if service is not None:
        if service.get('forced_down'):
            return 'nova: compute service forced down'
        if service.get('state') == 'down':
            return 'nova: compute service down'
        if service.get('status') == 'disabled':
            return 'nova: compute service disabled%s' % (
                ' (%s)' % service['disabled_reason']
                if service.get('disabled_reason') else '')
    if hypervisor is not None:
        if hypervisor.get('state') == 'down':
            return 'nova: hypervisor down'
        if hypervisor.get('status') == 'disabled':
            return 'nova: hypervisor disabled'
    return None
