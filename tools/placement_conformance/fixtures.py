"""Each upstream gabbi fixture's data, recreated through the HTTP API.

Placement's own fixtures (placement/tests/functional/fixtures/gabbits.py in
the openstack-placement wheel) write providers, inventories, traits,
aggregates and allocations straight into its database. Here the same data
goes through blazar_ext's Placement API as an admin, so the conformance
run sees the service only from the outside. The functions are ours; the
shapes they build are read from the upstream docstrings and code.
"""

import os
import uuid

import requests

ADMIN = {'x-auth-token': 'admin', 'content-type': 'application/json',
         'accept': 'application/json',
         'openstack-api-version': 'placement 1.28'}


def _new() -> str:
    return str(uuid.uuid4())


class Placement:
    """A thin admin client for building fixture data."""

    def __init__(self, base: str):
        self.base = base.rstrip('/')
        self.session = requests.Session()
        self.session.headers.update(ADMIN)

    def _call(self, method: str, path: str, body=None, ok=(200, 201, 204)):
        resp = self.session.request(method, self.base + path, json=body)
        if resp.status_code not in ok:
            raise RuntimeError('fixture %s %s: %d %s' % (
                method, path, resp.status_code, resp.text))
        return resp.json() if resp.content else None

    def ensure_class(self, name: str) -> None:
        if name.startswith('CUSTOM_'):
            self._call('POST', '/resource_classes', {'name': name},
                       ok=(201, 409))

    def ensure_trait(self, name: str) -> None:
        if name.startswith('CUSTOM_'):
            self._call('PUT', '/traits/' + name)

    def provider(self, name: str, *aggs: str, parent: str | None = None,
                 rp_uuid: str | None = None) -> str:
        rp_uuid = rp_uuid or _new()
        body = {'name': name, 'uuid': rp_uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        self._call('POST', '/resource_providers', body)
        if aggs:
            self.aggregates(rp_uuid, *aggs)
        return rp_uuid

    def _generation(self, rp_uuid: str) -> int:
        return self._call('GET', '/resource_providers/' + rp_uuid)[
            'generation']

    def aggregates(self, rp_uuid: str, *aggs: str) -> None:
        self._call('PUT', '/resource_providers/%s/aggregates' % rp_uuid,
                   {'aggregates': list(aggs),
                    'resource_provider_generation':
                        self._generation(rp_uuid)})

    def inventory(self, rp_uuid: str, rc: str, total: int, **kw) -> None:
        self.ensure_class(rc)
        kw.setdefault('max_unit', total)
        body = dict(kw, total=total, resource_class=rc)
        self._call('POST', '/resource_providers/%s/inventories' % rp_uuid,
                   body)

    def traits(self, rp_uuid: str, *traits: str) -> None:
        for name in traits:
            self.ensure_trait(name)
        self._call('PUT', '/resource_providers/%s/traits' % rp_uuid,
                   {'traits': list(traits),
                    'resource_provider_generation':
                        self._generation(rp_uuid)})

    def allocate(self, rp_uuid: str, used: dict, project: str, user: str,
                 consumer: str | None = None) -> str:
        consumer = consumer or _new()
        self._call('PUT', '/allocations/' + consumer, {
            'allocations': {rp_uuid: {'resources': used}},
            'project_id': project, 'user_id': user,
            'consumer_generation': None})
        return consumer


# What APIFixture puts in the environment for every file.
_API_ENV_UUIDS = (
    'RP_UUID', 'RP_NAME', 'RP_UUID1', 'RP_NAME1', 'RP_UUID2', 'RP_NAME2',
    'PROJECT_ID', 'ADMIN_PROJECT_ID', 'SERVICE_PROJECT_ID', 'USER_ID',
    'PROJECT_ID_ALT', 'USER_ID_ALT', 'INSTANCE_UUID', 'MIGRATION_UUID',
    'CONSUMER_UUID', 'PARENT_PROVIDER_UUID', 'ALT_PARENT_PROVIDER_UUID')


def api_env() -> None:
    for key in _API_ENV_UUIDS:
        os.environ[key] = _new()
    os.environ['CUSTOM_RES_CLASS'] = 'CUSTOM_IRON_NFV'
    os.environ['CUSTOM_RES_CLASS1'] = 'CUSTOM_IRON_NFV1'
    os.environ['CUSTOM_RES_CLASS2'] = 'CUSTOM_IRON_NFV2'


def allocation(p: Placement) -> None:
    """One provider (VCPU 10, DISK_GB 2048) and three consumers on it."""
    os.environ['ALT_USER_ID'] = _new()
    project, user = os.environ['PROJECT_ID'], os.environ['USER_ID']
    rp = p.provider(os.environ['RP_NAME'], rp_uuid=os.environ['RP_UUID'])
    p.inventory(rp, 'DISK_GB', 2048, step_size=10, min_unit=10,
                max_unit=1000)
    p.inventory(rp, 'VCPU', 10, max_unit=10)
    os.environ['CONSUMER_0'] = p.allocate(rp, {'DISK_GB': 1000}, project,
                                          user)
    os.environ['CONSUMER_ID'] = p.allocate(rp, {'VCPU': 6}, project, user)
    os.environ['ALT_CONSUMER_ID'] = p.allocate(
        rp, {'DISK_GB': 20, 'VCPU': 1}, project, os.environ['ALT_USER_ID'])
    os.environ['ALT_RP_UUID'] = _new()
    os.environ['ALT_RP_NAME'] = _new()


def shared_storage(p: Placement) -> None:
    """Two compute nodes with NUMA and PF children, two sharing disks."""
    agg = _new()
    os.environ['AGG_UUID'] = agg
    ids = {name: p.provider(name, agg)
           for name in ('cn1', 'cn2', 'ss', 'ss2')}
    for cn, numa in (('cn1', '1_1'), ('cn1', '1_2'), ('cn2', '2_1'),
                     ('cn2', '2_2')):
        ids['numa' + numa] = p.provider('numa' + numa, parent=ids[cn])
        ids['pf' + numa] = p.provider('pf' + numa,
                                      parent=ids['numa' + numa])
    for name, value in ids.items():
        os.environ[name.upper() + '_UUID'] = value
    for cn in ('cn1', 'cn2'):
        p.inventory(ids[cn], 'VCPU', 24, allocation_ratio=16.0)
        p.inventory(ids[cn], 'MEMORY_MB', 128 * 1024, allocation_ratio=1.5)
    p.traits(ids['cn1'], 'HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2')
    p.inventory(ids['cn2'], 'DISK_GB', 2000, reserved=100,
                allocation_ratio=1.0)
    for ss in ('ss', 'ss2'):
        p.inventory(ids[ss], 'DISK_GB', 2000, reserved=100,
                    allocation_ratio=1.0)
        p.traits(ids[ss], 'MISC_SHARES_VIA_AGGREGATE')
    for pf in ('pf1_1', 'pf1_2', 'pf2_1', 'pf2_2'):
        p.inventory(ids[pf], 'SRIOV_NET_VF', 8, allocation_ratio=1.0)


def numa_aggregate(p: Placement) -> None:
    """Resource-less compute nodes, CPU on NUMA children, aggregates."""
    agg_a, agg_b, agg_c = _new(), _new(), _new()
    os.environ.update(AGGA_UUID=agg_a, AGGB_UUID=agg_b, AGGC_UUID=agg_c)
    ids = {'cn1': p.provider('cn1', agg_a),
           'cn2': p.provider('cn2', agg_a, agg_b),
           'ss1': p.provider('ss1', agg_a),
           'ss2': p.provider('ss2', agg_c)}
    ids['numa1_1'] = p.provider('numa1_1', agg_c, parent=ids['cn1'])
    ids['numa1_2'] = p.provider('numa1_2', parent=ids['cn1'])
    ids['numa2_1'] = p.provider('numa2_1', parent=ids['cn2'])
    ids['numa2_2'] = p.provider('numa2_2', parent=ids['cn2'])
    for name, value in ids.items():
        os.environ[name.upper() + '_UUID'] = value
    for numa in ('numa1_1', 'numa1_2', 'numa2_1', 'numa2_2'):
        p.inventory(ids[numa], 'VCPU', 24, allocation_ratio=16.0)
    for ss in ('ss1', 'ss2'):
        p.inventory(ids[ss], 'DISK_GB', 2000, reserved=100,
                    allocation_ratio=1.0)
        p.traits(ids[ss], 'MISC_SHARES_VIA_AGGREGATE')


def numa_network(p: Placement, cn1: str | None = None,
                 cn2: str | None = None) -> None:
    """NUMA, device and network-agent subtrees under cn1; NICs under cn2."""
    agg_a = _new()
    os.environ['AGGA_UUID'] = agg_a
    ss1 = p.provider('ss1', agg_a)
    p.traits(ss1, 'MISC_SHARES_VIA_AGGREGATE')
    p.inventory(ss1, 'DISK_GB', 2000)
    os.environ['SS1_UUID'] = ss1

    cn1 = cn1 or p.provider('cn1', agg_a)
    p.aggregates(cn1, agg_a)
    p.traits(cn1, 'COMPUTE_VOLUME_MULTI_ATTACH')
    os.environ['CN1_UUID'] = cn1
    numas = []
    for i in (0, 1):
        numa = p.provider('numa%d' % i, parent=cn1)
        p.traits(numa, 'HW_NUMA_ROOT', *(['CUSTOM_FOO'] if i else []))
        p.inventory(numa, 'VCPU', 4)
        numas.append(numa)
        os.environ['NUMA%d_UUID' % i] = numa
    p.inventory(numas[0], 'MEMORY_MB', 2048, min_unit=512, step_size=256)
    p.inventory(numas[1], 'MEMORY_MB', 2048, min_unit=256, max_unit=1024)
    user, project = 'numafx-user', 'numafx-project'
    p.allocate(numas[0], {'VCPU': 2}, project, user)

    fpga = p.provider('fpga0', parent=numas[0])
    p.inventory(fpga, 'FPGA', 1)
    os.environ['FPGA0_UUID'] = fpga
    pgpu = p.provider('pgpu0', parent=numas[0])
    p.inventory(pgpu, 'VGPU', 8)
    os.environ['PGPU0_UUID'] = pgpu
    for i in (0, 1):
        fpga = p.provider('fpga1_%d' % i, parent=numas[1])
        p.inventory(fpga, 'FPGA', 1)
        os.environ['FPGA1_%d_UUID' % i] = fpga

    agent = p.provider('sriov_agent', parent=cn1)
    p.traits(agent, 'CUSTOM_VNIC_TYPE_DIRECT')
    os.environ['SRIOV_AGENT_UUID'] = agent
    for i in (1, 2):
        dev = p.provider('esn%d' % i, parent=agent)
        p.traits(dev, 'CUSTOM_PHYSNET%d' % i)
        p.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000 * i)
        os.environ['ESN%d_UUID' % i] = dev
    agent = p.provider('ovs_agent', parent=cn1)
    p.traits(agent, 'CUSTOM_VNIC_TYPE_NORMAL')
    os.environ['OVS_AGENT_UUID'] = agent
    dev = p.provider('br_int', parent=agent)
    p.traits(dev, 'CUSTOM_PHYSNET0')
    p.inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
    os.environ['BR_INT_UUID'] = dev

    cn2 = cn2 or p.provider('cn2')
    p.aggregates(cn2, agg_a)
    p.inventory(cn2, 'VCPU', 8)
    p.allocate(cn2, {'VCPU': 3}, project, user)
    p.inventory(cn2, 'MEMORY_MB', 2048, min_unit=1024, step_size=128)
    p.inventory(cn2, 'DISK_GB', 1000)
    p.traits(cn2, 'CUSTOM_FOO')
    os.environ['CN2_UUID'] = cn2
    nics = []
    for i in (1, 2, 3):
        nic = p.provider('nic%d' % i, parent=cn2)
        p.traits(nic, 'CUSTOM_HW_NIC_ROOT')
        nics.append(nic)
        os.environ['NIC%s_UUID' % i] = nic
    pfs = [('1_1', 0, 1, 4), ('1_2', 0, 2, 4), ('2_1', 1, 1, 2),
           ('2_2', 1, 2, 2), ('2_3', 1, 1, 2), ('2_4', 1, 2, 2),
           ('3_1', 2, 1, 8)]
    for suffix, nic, net, vfs in pfs:
        pf = p.provider('pf' + suffix, parent=nics[nic])
        p.traits(pf, 'CUSTOM_PHYSNET%d' % net)
        p.inventory(pf, 'CUSTOM_VF', vfs)
        os.environ['PF%s_UUID' % suffix] = pf


def deep_numa_network(p: Placement) -> None:
    """numa_network with cn1 and cn2 under parents and a grandparent."""
    gp1 = p.provider('gp1')
    p1 = p.provider('p1', parent=gp1)
    p2 = p.provider('p2', parent=gp1)
    numa_network(p, cn1=p.provider('cn1', parent=p1),
                 cn2=p.provider('cn2', parent=p2))


def non_shared_storage(p: Placement) -> None:
    """Three compute nodes with local VCPU, MEMORY_MB and DISK_GB."""
    for key in ('AGGA_UUID', 'AGGB_UUID', 'AGGC_UUID'):
        os.environ[key] = _new()
    for name in ('cn1', 'cn2', 'cn3'):
        cn = p.provider(name)
        os.environ[name.upper() + '_UUID'] = cn
        p.inventory(cn, 'VCPU', 24)
        p.inventory(cn, 'MEMORY_MB', 128 * 1024)
        p.inventory(cn, 'DISK_GB', 2000)


def granular(p: Placement) -> None:
    """Three compute nodes and three sharing providers in aggregates A-C."""
    p.ensure_class('CUSTOM_NET_MBPS')
    agg_a, agg_b, agg_c = _new(), _new(), _new()
    os.environ.update(AGGA=agg_a, AGGB=agg_b, AGGC=agg_c)
    left = p.provider('cn_left', agg_a)
    os.environ['CN_LEFT'] = left
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500),
                      ('VGPU', 8), ('SRIOV_NET_VF', 8),
                      ('CUSTOM_NET_MBPS', 4000)):
        p.inventory(left, rc, total)
    p.traits(left, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_GPU_API_DXVA',
             'HW_NIC_DCB_PFC', 'CUSTOM_FOO')
    middle = p.provider('cn_middle', agg_a, agg_b)
    os.environ['CN_MIDDLE'] = middle
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096),
                      ('SRIOV_NET_VF', 8), ('CUSTOM_NET_MBPS', 4000)):
        p.inventory(middle, rc, total)
    p.traits(middle, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE',
             'HW_NIC_ACCEL_TLS')
    right = p.provider('cn_right', agg_b, agg_c)
    os.environ['CN_RIGHT'] = right
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500)):
        p.inventory(right, rc, total)
    p.inventory(right, 'VGPU', 8, max_unit=2)
    p.traits(right, 'HW_CPU_X86_MMX', 'HW_GPU_API_DXVA', 'CUSTOM_DISK_SSD')
    disk1 = p.provider('shr_disk_1', agg_a)
    os.environ['SHR_DISK_1'] = disk1
    p.inventory(disk1, 'DISK_GB', 1000)
    p.traits(disk1, 'MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_DISK_SSD')
    disk2 = p.provider('shr_disk_2', agg_a, agg_b)
    os.environ['SHR_DISK_2'] = disk2
    p.inventory(disk2, 'DISK_GB', 1000)
    p.traits(disk2, 'MISC_SHARES_VIA_AGGREGATE')
    net = p.provider('shr_net', agg_c)
    os.environ['SHR_NET'] = net
    p.inventory(net, 'SRIOV_NET_VF', 16)
    p.inventory(net, 'CUSTOM_NET_MBPS', 40000)
    p.traits(net, 'MISC_SHARES_VIA_AGGREGATE')


def _qos_compute(p: Placement, n: int, physnets: list, bw: int,
                 pf_bw: int) -> None:
    """One compute tree of the Neutron QoS multi-segment fixture."""
    name = 'compute%d' % n
    cn = p.provider(name)
    os.environ[name] = cn
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500)):
        p.inventory(cn, rc, total)
    ovs = p.provider(name + ':Open vSwitch agent', parent=cn)
    os.environ[name + ':ovs_agent'] = ovs
    p.inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
    p.traits(ovs, 'CUSTOM_VNIC_TYPE_NORMAL')
    for i, physnet in enumerate(physnets):
        suffix = 'br-ex' + (str(i + 1) if i else '')
        br = p.provider('%s:Open vSwitch agent:%s' % (name, suffix),
                        parent=ovs)
        os.environ['%s:%s' % (name, suffix.replace('-', '_'))] = br
        p.inventory(br, 'NET_BW_EGR_KILOBIT_PER_SEC', bw)
        p.inventory(br, 'NET_BW_IGR_KILOBIT_PER_SEC', bw)
        p.traits(br, 'CUSTOM_VNIC_TYPE_NORMAL', physnet)
    vnics = ('CUSTOM_VNIC_TYPE_DIRECT', 'CUSTOM_VNIC_TYPE_DIRECT_PHYSICAL',
             'CUSTOM_VNIC_TYPE_MACVTAP')
    sriov = p.provider(name + ':NIC Switch agent', parent=cn)
    # Upstream's fixture stores compute2's agent under compute3's key.
    os.environ[name + ':sriov_agent'] = (
        os.environ['compute2:sriov_agent'] if n == 3 else sriov)
    p.traits(sriov, *vnics)
    for i, physnet in enumerate(physnets):
        pf = p.provider('%s:NIC Switch agent:enp129s0f%d' % (name, i),
                        parent=sriov)
        os.environ['%s:pf%d' % (name, i)] = pf
        p.inventory(pf, 'NET_BW_EGR_KILOBIT_PER_SEC', pf_bw)
        p.inventory(pf, 'NET_BW_IGR_KILOBIT_PER_SEC', pf_bw)
        p.traits(pf, *vnics, physnet)


def neutron_qos_multi_segment(p: Placement) -> None:
    """Four compute trees with OVS and SR-IOV agents on physnets."""
    _qos_compute(p, 0, ['CUSTOM_PHYSNET_OTHER'], 5000, 10000)
    _qos_compute(p, 1, ['CUSTOM_PHYSNET_MSN_S1'], 5000, 10000)
    _qos_compute(p, 2, ['CUSTOM_PHYSNET_MSN_S2'], 5000, 10000)
    _qos_compute(p, 3, ['CUSTOM_PHYSNET_MSN_S1', 'CUSTOM_PHYSNET_MSN_S2'],
                 1000, 1000)


# Fixture name -> (data builder or None, server settings).
# Settings: 'new_defaults' for [oslo_policy] enforce_new_defaults,
# 'open_policy' to allow every placement rule to anyone, 'cors' to turn on
# CORS for one origin.
FIXTURES = {
    'APIFixture': (None, {}),
    'AllocationFixture': (allocation, {}),
    'SharedStorageFixture': (shared_storage, {}),
    'NUMAAggregateFixture': (numa_aggregate, {}),
    'NUMANetworkFixture': (numa_network, {}),
    'DeepNUMANetworkFixture': (deep_numa_network, {}),
    'NonSharedStorageFixture': (non_shared_storage, {}),
    'GranularFixture': (granular, {}),
    'NeutronQoSMultiSegmentFixture': (neutron_qos_multi_segment, {}),
    'CORSFixture': (None, {'cors': True}),
    'OpenPolicyFixture': (None, {'open_policy': True}),
    'SecureRBACPolicyFixture': (None, {'new_defaults': True}),
    'LegacyRBACPolicyFixture': (None, {}),
}
