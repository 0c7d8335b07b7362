"""The data both sides of the side-by-side bench are seeded with.

Pure Python, importable from blazar_ext's environment and from upstream
Blazar's private venv alike (tools/bench/upstream.py runs there): hosts
with 20 extra capabilities each, and reservation windows per host.
"""

import datetime

# Twenty capabilities: a boolean, numbers, names and lists.
CAPABILITY_NAMES = (
    'gpu', 'ram_gb', 'rack', 'nic_gbps', 'cpu_model', 'cpu_features',
    'disk_type', 'numa_nodes', 'row', 'power_kw', 'vendor', 'bios',
    'firmware', 'accelerator', 'site', 'pdu', 'switch', 'kernel', 'tier',
    'label')
assert len(CAPABILITY_NAMES) == 20

# What the bench asks for: a third of the hosts have a GPU, and ram_gb
# >= 64 holds for two thirds of them.
EQUALITY = '["==", "$gpu", "True"]'
NUMERIC = '[">=", "$ram_gb", "64"]'


def host_columns(i: int) -> dict:
    """The computehosts columns of host number ``i`` (from 1)."""
    return {'vcpus': 8 * (1 + i % 8), 'cpu_info': '{"arch": "x86_64"}',
            'hypervisor_type': 'QEMU', 'hypervisor_version': 8002000,
            'hypervisor_hostname': 'host-%06d' % i,
            'service_name': 'host-%06d' % i,
            'memory_mb': 4096 * (1 + i % 32), 'local_gb': 100 + i % 900}


def capabilities(i: int) -> dict:
    """The 20 capability values (strings) of host number ``i``."""
    return {
        'gpu': 'True' if i % 3 == 0 else 'False',
        # Free hosts (odd) have 32, 96 or 256: upstream compares these as
        # text, and '96' >= '64' lets it find a host too.
        'ram_gb': str((16, 32, 64, 96, 128, 256)[i % 6]),
        'rack': 'r%d' % (i % 50),
        'nic_gbps': str((10, 25, 40, 100)[i % 4]),
        'cpu_model': ('Haswell', 'Skylake', 'Icelake')[i % 3],
        'cpu_features': ('aes,avx,sse4_2', 'aes,avx,avx512')[i % 2],
        'disk_type': ('ssd', 'nvme', 'hdd')[i % 3],
        'numa_nodes': str(1 + i % 4),
        'row': 'row-%d' % (i % 10),
        'power_kw': '%.1f' % (0.5 + (i % 7) / 2),
        'vendor': ('dell', 'hpe', 'lenovo', 'supermicro')[i % 4],
        'bios': '2.%d.%d' % (i % 5, i % 11),
        'firmware': 'fw-%d' % (i % 17),
        'accelerator': ('none', 'fpga', 'a100', 'h100')[i % 4],
        'site': ('north', 'south')[i % 2],
        'pdu': 'pdu-%d' % (i % 40),
        'switch': 'sw-%d' % (i % 100),
        'kernel': '6.%d' % (i % 9),
        'tier': ('gold', 'silver', 'bronze')[i % 3],
        'label': 'host number %d' % i,
    }


def reservation_windows(i: int, per_host: int,
                        base: datetime.datetime) -> list:
    """``per_host`` one-day windows of host ``i`` over the coming weeks,
    starting an hour past a day mark: about half the hosts are busy on
    any day, and a window 'one day and two hours' after ``base`` for 50
    minutes falls between them."""
    windows = []
    for k in range(per_host):
        start = base + datetime.timedelta(days=2 * k + i % 2, hours=1)
        windows.append((start, start + datetime.timedelta(days=1)))
    return windows


def lease_window(n: int, base: datetime.datetime) -> tuple:
    """The window of the n-th lease the bench creates: 50 minutes, in a gap
    between existing reservations of the odd hosts."""
    start = base + datetime.timedelta(days=2, hours=2 + n % 20,
                                      minutes=(n // 20) % 10)
    return start, start + datetime.timedelta(minutes=50)


# What the bench measures: two lease creates and three reads, each read
# with who asks ('admin' or the 'lister' project).
CREATES = {'create_eq': (EQUALITY, 0), 'create_num': (NUMERIC, 1000)}
READS = {'hosts': ('/v1/os-hosts', 'admin'),
         'properties': ('/v1/os-hosts/properties?detail=true', 'admin'),
         'leases': ('/v1/leases', 'lister')}


def lease_request(kind: str, n: int, base: datetime.datetime,
                  tag: str) -> dict:
    """The body of the n-th POST /v1/leases of ``kind`` (a CREATES key);
    ``tag`` keeps names apart between runs on the same database."""
    expression, offset = CREATES[kind]
    start, end = lease_window(offset + n, base)
    return {'name': 'bench-%s-%s-%d' % (kind, tag, n),
            'start_date': start.strftime('%Y-%m-%d %H:%M'),
            'end_date': end.strftime('%Y-%m-%d %H:%M'),
            'reservations': [{
                'resource_type': 'physical:host', 'min': 1, 'max': 1,
                'hypervisor_properties': '',
                'resource_properties': expression}],
            'events': []}


def request(kind: str, n: int, base: datetime.datetime, tag: str) -> tuple:
    """The n-th request of ``kind`` (a CREATES or READS key): (method,
    path, who asks, JSON body or None)."""
    if kind in CREATES:
        return 'POST', '/v1/leases', 'admin', lease_request(kind, n, base,
                                                            tag)
    path, who = READS[kind]
    return 'GET', path, who, None
