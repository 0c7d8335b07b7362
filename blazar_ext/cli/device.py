"""OpenStackClient commands for devices (the physical:device resource
type, /v1/devices), in python-blazarclient's ``openstack.reservation.v1``
command group (setup.cfg); python-blazarclient has none of its own:

    openstack reservation device list
    openstack reservation device show DEVICE
    openstack reservation device create NAME --device-type jetson \\
        [--vendor V] [--model M] [--extra gpu_mem_gb=32 ...] \\
        [--resource-provider UUID | --create-resource-provider]
    openstack reservation device set DEVICE [--extra k=v ...] \\
        [--unset k ...] [--reservable | --non-reservable [--reason R]]
    openstack reservation device delete DEVICE

DEVICE is a device's id or name. Loaded by OpenStackClient only.
"""

from osc_lib.command import command
from osc_lib import exceptions

LIST_COLUMNS = ('id', 'name', 'device_type', 'vendor', 'model',
                'reservable')


def _manager(app):
    return app.client_manager.reservation.lease.request_manager


def _device_id(app, name_or_id: str) -> str:
    """A device's id from its id or its name (unknown: the server's 404
    names it)."""
    _resp, answer = _manager(app).get('/devices')
    for device in answer['devices']:
        if name_or_id in (device['id'], device['name']):
            return device['id']
    return name_or_id


def _show(device: dict):
    return zip(*sorted(device.items()))


def _extras(pairs: list) -> dict:
    """``key=value`` pairs as a dict; CommandError naming a bad one."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition('=')
        if not sep or not key:
            raise exceptions.CommandError(
                'invalid --extra %r: give key=value' % pair)
        out[key] = value
    return out


class ListDevices(command.Lister):
    """List devices (admin)."""

    def take_action(self, parsed_args):
        _resp, answer = _manager(self.app).get('/devices')
        return LIST_COLUMNS, [tuple(d.get(c) for c in LIST_COLUMNS)
                              for d in answer['devices']]


class _NamesDevice:
    """A command whose first argument names one device."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('device', metavar='<device>',
                            help='ID or name of the device.')
        return parser


class ShowDevice(_NamesDevice, command.ShowOne):
    """Show a device: its fields, extra capabilities, provider and
    traits."""

    def take_action(self, parsed_args):
        device_id = _device_id(self.app, parsed_args.device)
        _resp, answer = _manager(self.app).get('/devices/%s' % device_id)
        return _show(answer['device'])


def _add_extra(parser) -> None:
    parser.add_argument('--extra', metavar='<key=value>', action='append',
                        default=[], help='An extra capability; repeat.')


class CreateDevice(command.ShowOne):
    """Register a device (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>',
                            help='Name of the device (unique).')
        parser.add_argument('--device-type', required=True,
                            help='Kind of device (jetson, fpga, ...).')
        parser.add_argument('--vendor', help='Vendor of the device.')
        parser.add_argument('--model', help='Model of the device.')
        _add_extra(parser)
        provider = parser.add_mutually_exclusive_group()
        provider.add_argument(
            '--resource-provider', metavar='<uuid>',
            help='An existing Placement resource provider backing the '
                 'device (its traits are the device\'s).')
        provider.add_argument(
            '--create-resource-provider', action='store_true',
            help='Back the device by a provider named after it (adopted '
                 'if one exists, else created).')
        return parser

    def take_action(self, parsed_args):
        body = _extras(parsed_args.extra)
        body.update(name=parsed_args.name,
                    device_type=parsed_args.device_type)
        for key in ('vendor', 'model'):
            if getattr(parsed_args, key) is not None:
                body[key] = getattr(parsed_args, key)
        if parsed_args.resource_provider:
            body['resource_provider'] = parsed_args.resource_provider
        elif parsed_args.create_resource_provider:
            body['resource_provider'] = True
        _resp, answer = _manager(self.app).post('/devices', body=body)
        return _show(answer['device'])


class SetDevice(_NamesDevice, command.ShowOne):
    """Set or unset a device's extra capabilities, or take it out of
    service and back (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_extra(parser)
        parser.add_argument('--unset', metavar='<key>', action='append',
                            default=[],
                            help='An extra capability to remove; repeat.')
        state = parser.add_mutually_exclusive_group()
        state.add_argument('--reservable', action='store_true',
                           default=None, help='Back in service.')
        state.add_argument('--non-reservable', dest='reservable',
                           action='store_false',
                           help='Out of service: its reservations move '
                                'to other devices.')
        parser.add_argument('--reason',
                            help='Why it is out of service (with '
                                 '--non-reservable).')
        return parser

    def take_action(self, parsed_args):
        body = _extras(parsed_args.extra)
        body.update({key: None for key in parsed_args.unset})
        if parsed_args.reservable is not None:
            body['reservable'] = parsed_args.reservable
        if parsed_args.reason is not None:
            body['reservable_reason'] = parsed_args.reason
        if not body:
            raise exceptions.CommandError(
                'nothing to set: give --extra, --unset, --reservable or '
                '--non-reservable')
        device_id = _device_id(self.app, parsed_args.device)
        _resp, answer = _manager(self.app).put('/devices/%s' % device_id,
                                               body=body)
        return _show(answer['device'])


class DeleteDevice(_NamesDevice, command.Command):
    """Unregister a device no reservation holds (admin)."""

    def take_action(self, parsed_args):
        device_id = _device_id(self.app, parsed_args.device)
        _manager(self.app).delete('/devices/%s' % device_id)
