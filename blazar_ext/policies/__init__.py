"""In-code policy defaults, one module per API resource."""

import itertools

from oslo_utils import importutils
from stevedore import extension

from blazar_ext.policies import base
from blazar_ext.policies import budgets
from blazar_ext.policies import floatingips
from blazar_ext.policies import lease_plan
from blazar_ext.policies import lease_series
from blazar_ext.policies import leases
from blazar_ext.policies import maintenance
from blazar_ext.policies import metadefs
from blazar_ext.policies import metrics
from blazar_ext.policies import oshosts
from blazar_ext.policies import placement_aggregate
from blazar_ext.policies import placement_allocation
from blazar_ext.policies import placement_allocation_candidate
from blazar_ext.policies import placement_base
from blazar_ext.policies import placement_inventory
from blazar_ext.policies import placement_reshaper
from blazar_ext.policies import placement_resource_class
from blazar_ext.policies import placement_resource_provider
from blazar_ext.policies import placement_trait
from blazar_ext.policies import placement_usage
from blazar_ext.policies import properties
from blazar_ext.policies import subscriptions

# Add a module here when it defines rules for a new resource.
MODULES = [
    base,
    metadefs,
    oshosts,
    placement_base,
    placement_aggregate,
    placement_allocation,
    placement_allocation_candidate,
    placement_inventory,
    placement_resource_class,
    placement_reshaper,
    placement_resource_provider,
    placement_trait,
    placement_usage,
    leases,
    lease_plan,
    floatingips,
    properties,
    metrics,
    budgets,
    subscriptions,
    lease_series,
    maintenance,
]


def _plugin_modules() -> list:
    """Policy modules resource-type plugins declare (``policy_modules``)
    that are not listed above: a third-party type brings its own. Every
    installed plugin counts, enabled or not, so the sample file is whole."""
    names = []
    manager = extension.ExtensionManager(
        'blazar_ext.resource.plugins', invoke_on_load=False)
    for ext in manager:
        names.extend(getattr(ext.plugin, 'policy_modules', ()))
    listed = {module.__name__ for module in MODULES}
    return [importutils.import_module(name)
            for name in dict.fromkeys(names) if name not in listed]


def list_rules() -> list:
    return list(itertools.chain.from_iterable(
        module.list_rules() for module in MODULES + _plugin_modules()))
