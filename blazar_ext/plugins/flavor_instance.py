"""flavor:instance reservations, as upstream Blazar's newer plugin:
``flavor_id``, ``amount`` and ``affinity``. The size comes from the
flavor (its vcpus, ram, and disk plus ephemeral disk, overridden by
``resources:VCPU``, ``resources:MEMORY_MB`` and ``resources:DISK_GB``
extra specs) and its ``trait:<NAME>=required|forbidden`` extra specs
choose the hosts. The capacity, packing, Placement providers and updates
are virtual:instance's.
"""

from oslo_serialization import jsonutils

from blazar_ext.drivers import flavor_source
from blazar_ext import exceptions
from blazar_ext.plugins import base
from blazar_ext.plugins import virtual_instance

RESOURCE_TYPE = 'flavor:instance'
_SIZES = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb', 'DISK_GB': 'disk_gb'}
# Nova's name for a flavor's ephemeral disk (GB).
_EPHEMERAL = 'OS-FLV-EXT-DATA:ephemeral'


def _invalid(reason: str) -> exceptions.Invalid:
    return exceptions.Invalid(reason='flavor:instance reservation: %s'
                              % reason)


def size_and_traits(flavor: dict) -> tuple:
    """({vcpus, memory_mb, disk_gb}, resource_properties) of a flavor
    (as a flavor_source gives it)."""
    # The root disk and the ephemeral one, as upstream Blazar counts it.
    size = {'vcpus': flavor['vcpus'], 'memory_mb': flavor['ram'],
            'disk_gb': flavor['disk'] + flavor.get('ephemeral', 0)}
    if flavor['extra_specs'].get('hw:cpu_policy') == 'dedicated':
        # Upstream reserves PCPU for these; instance reservations hold
        # VCPU only, and would hold the wrong class.
        raise _invalid('flavor %s asks for dedicated CPUs '
                       '(hw:cpu_policy=dedicated), which instance '
                       'reservations cannot hold' % flavor['id'])
    required, forbidden = [], []
    for key, value in sorted(flavor['extra_specs'].items()):
        if key.startswith('resources:'):
            name = key[len('resources:'):]
            if name not in _SIZES:
                raise _invalid('flavor %s asks for %s, which instance '
                               'reservations cannot hold (only %s)'
                               % (flavor['id'], name,
                                  ', '.join(sorted(_SIZES))))
            size[_SIZES[name]] = int(value)
        elif key.startswith('trait:'):
            name = key[len('trait:'):]
            if value == 'required':
                required.append(name)
            elif value == 'forbidden':
                forbidden.append(name)
    terms = [['==', '$traits', name] for name in required]
    terms += [['not', ['==', '$traits', name]] for name in forbidden]
    if not terms:
        return size, ''
    query = terms[0] if len(terms) == 1 else ['and'] + terms
    return size, jsonutils.dumps(query)


def upstream_flavor(stored: str | None) -> dict:
    """The flavor (as a flavor_source gives it) of upstream Blazar's copy
    of Nova's flavor; Invalid saying what is missing."""
    try:
        flavor = jsonutils.loads(stored or '')
    except ValueError:
        flavor = None
    if not isinstance(flavor, dict):
        raise _invalid('resource_properties %.60r is not the JSON copy of '
                       'a Nova flavor that upstream Blazar keeps'
                       % (stored,))
    try:
        specs = flavor.get('extra_specs') or {}
        if not isinstance(specs, dict):
            raise ValueError('extra_specs is not an object')
        return {'id': str(flavor['id']), 'vcpus': int(flavor['vcpus']),
                'ram': int(flavor['ram']), 'disk': int(flavor['disk']),
                'ephemeral': int(flavor.get(_EPHEMERAL) or 0),
                'extra_specs': {str(k): str(v) for k, v in specs.items()}}
    except (KeyError, TypeError, ValueError) as exc:
        raise _invalid('the stored copy of flavor %s cannot be read: %s %s'
                       % (flavor.get('id'), exc.__class__.__name__, exc))


class FlavorInstancePlugin(virtual_instance.InstanceReservationPlugin):
    """Instances of a flavor."""

    resource_type = RESOURCE_TYPE
    detail_columns = ('flavor_id', 'amount', 'affinity', 'vcpus',
                      'memory_mb', 'disk_gb', 'resource_properties')

    def __init__(self, source: flavor_source.FlavorSource | None = None,
                 **kwargs):
        super().__init__(**kwargs)
        self._source = source
        self._sources: dict = {}

    @property
    def source(self) -> flavor_source.FlavorSource:
        if self._source is not None:
            return self._source
        name = flavor_source.CONF.manager.flavor_source
        if name not in self._sources:
            self._sources[name] = flavor_source.load(name)
        return self._sources[name]

    def normalize(self, request: dict, current: dict | None = None,
                  private_visible: bool = False) -> base.Spec:
        merged = dict(current or {})
        merged.update({k: v for k, v in request.items()
                       if v is not None or k == 'affinity'})
        flavor_id = merged.get('flavor_id')
        if not isinstance(flavor_id, str) or not flavor_id:
            raise _invalid('flavor_id is required')
        size, properties = size_and_traits(self.source.get(flavor_id))
        spec = super().normalize(
            dict(size, amount=merged.get('amount', 1),
                 affinity=merged.get('affinity'),
                 resource_properties=properties),
            private_visible=private_visible)
        return spec.copy_with(resource_type=RESOURCE_TYPE,
                              flavor_id=flavor_id)

    def adopt_upstream_detail(self, row: dict) -> dict:
        """Upstream Blazar 18 keeps the flavor a reservation was made
        from only as a JSON copy of Nova's flavor (with its
        ``extra_specs``) in ``resource_properties``, and the size shown
        (vcpus, ram, disk without the ephemeral disk) in the size columns;
        here the flavor's id and what ``normalize`` would make of it."""
        flavor = upstream_flavor(row['resource_properties'])
        size, properties = size_and_traits(flavor)
        return dict(size, flavor_id=flavor['id'],
                    resource_properties=properties)

    def spec_of(self, reservation: dict) -> dict:
        # The flavor decides the size again on update.
        return {'resource_type': RESOURCE_TYPE, 'id': reservation['id'],
                'flavor_id': reservation.get('flavor_id'),
                'amount': reservation.get('amount'),
                'affinity': reservation.get('affinity')}
