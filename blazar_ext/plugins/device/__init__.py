"""physical:device: devices that are not hosts (edge boards, accelerators
attached to no host), registered under /v1/devices and leased like hosts
(``min``, ``max``, ``resource_properties``).

Added through the resource-type contract alone (blazar_ext.plugins.base):
this package (the plugin), its API controller and request schemas
(api/v1/devices.py, api/v1/schemas/device.py: the layers keep policy
checks and HTTP in api/), its tables (db/models/device.py, migration
0022), its queries (db/api/device.py), its policies (policies/devices.py)
and its entry point
``physical.device.plugin``. Enable it with ``[manager] plugins``.
"""

RESOURCE_TYPE = 'physical:device'
