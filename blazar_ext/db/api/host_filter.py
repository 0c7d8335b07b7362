"""The host filter: one condition over computehosts for a host request.

Host reservations, instance packing and the availability route ask the
same thing of a host: its columns and capabilities match the request's
``hypervisor_properties`` and ``resource_properties`` (parsed once into a
host_properties.HostQuery), and its resource provider meets the request's
trait requirement. ``build`` turns that into one SQL condition, inside the
caller's session:

    condition = host_filter.build(session, host_properties.HostQuery(
        hypervisor_properties, resource_properties), requirement,
        private_visible=False)

Only the capability names the expressions mention are looked up. A name
the caller may not see, or a trait that does not exist, is an Invalid
(400) naming it. Those look-ups run on every build; the condition itself
is compiled once for what it depends on and kept (``_COMPILED``).
"""

import sqlalchemy as sa

from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import host_properties
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.models import host as host_models
from blazar_ext import exceptions
from blazar_ext.query import traits as trait_query


def known_capabilities(session, names) -> dict:
    """{name: private} of the host capability names of ``names`` that
    exist."""
    return capability_api.known(session, host_properties.RESOURCE_TYPE,
                                names)


def _check_traits(session, names, field: str) -> None:
    try:
        trait_api.check_exist(session, names)
    except exceptions.TraitNotFound as exc:
        raise exceptions.Invalid(reason='%s: %s' % (field, exc))


# Conditions built before, by all they are a function of: the parsed
# expressions, the trait requirement, the capabilities named as they were
# found and whether private ones may be named. Compiling one cost a lease
# create about as much as running its candidates query (1,000 hosts); a
# condition kept is also the same statement object for SQLAlchemy, whose
# compiled form it then finds without building a cache key again. The
# look-ups that may refuse a request still run on every build.
_COMPILED: dict = {}
_COMPILED_AT_MOST = 256


def build(session, query: host_properties.HostQuery,
          requirement: trait_query.TraitRequirement | None = None,
          private_visible: bool = False,
          traits_field: str = 'traits') -> sa.ColumnElement:
    """One condition over ComputeHost for ``query`` and ``requirement``.

    ``traits_field`` names the requirement in the Invalid raised for a
    trait that does not exist. A host without a resource provider has no
    traits.
    """
    known = known_capabilities(session, query.capability_names())
    key = (query.hypervisor, query.resource, requirement or None,
           private_visible, frozenset(known.items()))
    condition = _COMPILED.get(key)
    properties = condition
    if condition is None:
        # Invalid for a name the caller may not use, before the traits.
        properties = query.compile(private_visible=private_visible,
                                   known_capabilities=known)
    _check_traits(session, query.trait_names(),
                  'resource_properties: "$traits"')
    if requirement:
        _check_traits(session, requirement.names, traits_field)
    if condition is None:
        condition = properties
        if requirement:
            condition = sa.and_(properties, *trait_api.provider_filter(
                requirement, host_models.ComputeHost.resource_provider_id))
        if len(_COMPILED) >= _COMPILED_AT_MOST:
            _COMPILED.clear()
        _COMPILED[key] = condition
    return condition
