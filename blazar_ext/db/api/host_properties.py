"""Host property filters: hypervisor_properties and resource_properties.

    query = HostQuery(hypervisor_properties, resource_properties)
    expr = query.compile(private_visible=True, known_capabilities=None)

parses both expressions once (Invalid if malformed) and compiles them to
a condition over ComputeHost for a SELECT on computehosts.
hypervisor_properties may name host columns only; resource_properties may
name host columns, extra capabilities of 'physical:host' and ``$traits``,
the traits of the host's resource provider (``["==", "$traits",
"CUSTOM_GPU"]`` requires one, ``["not", ...]`` forbids it). The language is
described in blazar_ext.query.language and blazar_ext.query.compiler.

This module does no I/O: the caller passes the capability names it knows
(blazar_ext.db.api.host_filter.build does that, and adds the trait
requirement).
"""

from typing import Mapping

import sqlalchemy as sa

from blazar_ext.db.models import host as models
from blazar_ext.db.models import placement as placement_models
from blazar_ext.query import compiler
from blazar_ext.query import language

RESOURCE_TYPE = 'physical:host'

# The host columns a property expression may name, as upstream Blazar's.
COLUMNS = ('vcpus', 'memory_mb', 'local_gb', 'hypervisor_type',
           'hypervisor_version', 'hypervisor_hostname', 'cpu_info',
           'service_name', 'availability_zone')

# The set-valued property of a host's traits; it shadows a capability of
# the same name.
TRAITS = 'traits'

CAPABILITIES = compiler.CapabilityTable(
    resource_type=RESOURCE_TYPE,
    owner_id=models.ComputeHost.id,
    names=models.ExtraCapability,
    values=models.ComputeHostExtraCapability,
    values_owner_id='computehost_id',
    values_number='capability_number')


def _columns() -> dict:
    return {name: getattr(models.ComputeHost, name) for name in COLUMNS}


def _traits_target() -> compiler.Target:
    """``$traits``: names of the traits of the host's resource provider.
    A host without a provider has none, so ``not`` matches it."""
    provider_id = models.ComputeHost.resource_provider_id
    trait = placement_models.Trait
    provider_trait = placement_models.ResourceProviderTrait

    def wrap(condition):
        return sa.and_(provider_id.is_not(None), provider_id.in_(
            sa.select(provider_trait.resource_provider_id)
            .join(trait, trait.id == provider_trait.trait_id)
            .where(condition)))
    return compiler.Target(TRAITS, trait.name, False, wrap, multi=True)


def host_resolver(field: str = 'resource_properties',
                  known_capabilities: Mapping[str, bool] | None = None,
                  private_visible: bool = True,
                  capabilities_allowed: bool = True
                  ) -> compiler.TableResolver:
    """The resolver for ComputeHost: its columns, then its capabilities."""
    return compiler.TableResolver(
        field, _columns(),
        CAPABILITIES if capabilities_allowed else None,
        known_capabilities, private_visible,
        sets={TRAITS: _traits_target()} if capabilities_allowed else None)


class HostQuery:
    """Both property expressions of a host request, parsed once."""

    def __init__(self, hypervisor_properties, resource_properties):
        self.hypervisor = language.parse(hypervisor_properties,
                                         'hypervisor_properties')
        self.resource = language.parse(resource_properties,
                                       'resource_properties')

    def capability_names(self) -> set:
        """Names in resource_properties that are not host columns: lets a
        caller load only the capabilities the expression mentions."""
        return (language.properties_of(self.resource) - set(COLUMNS)
                - {TRAITS})

    def trait_names(self) -> set:
        """The trait names resource_properties tests ``$traits`` against,
        for the caller to check that each exists."""
        return language.values_of(self.resource, TRAITS)

    def compile(self, private_visible: bool = True,
                known_capabilities: Mapping[str, bool] | None = None
                ) -> sa.ColumnElement:
        """One condition over ComputeHost for both expressions; empty
        ones mean no filter (TRUE). Invalid names a property the caller
        may not use."""
        hypervisor = compiler.compile(
            self.hypervisor,
            host_resolver('hypervisor_properties',
                          capabilities_allowed=False))
        resource = compiler.compile(
            self.resource,
            host_resolver('resource_properties', known_capabilities,
                          private_visible))
        return sa.and_(hypervisor, resource)
