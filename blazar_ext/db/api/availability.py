"""Busy intervals of the hosts a request matches, for the availability
route: one query over hosts and the allocations overlapping a window."""

import datetime

import sqlalchemy as sa

from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import host_properties
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.query import traits as trait_query


def _trait_filter(session, resource_properties: str,
                  requirement: trait_query.TraitRequirement) -> list:
    """The traits part of the host filter; Invalid names unknown traits."""
    try:
        trait_api.check_exist(session, host_properties.trait_names(
            resource_properties))
    except exceptions.TraitNotFound as exc:
        raise exceptions.Invalid(
            reason='resource_properties: "$traits": %s' % exc)
    try:
        trait_api.check_exist(session, requirement.names)
    except exceptions.TraitNotFound as exc:
        raise exceptions.Invalid(reason='traits: %s' % exc)
    if not requirement:
        return []
    return trait_api.provider_filter(
        requirement, host_models.ComputeHost.resource_provider_id)


def host_busy_intervals(context, resource_properties: str,
                        hypervisor_properties: str,
                        requirement: trait_query.TraitRequirement,
                        start: datetime.datetime, end: datetime.datetime,
                        cleaning: datetime.timedelta,
                        private_visible: bool) -> dict:
    """{host_id: [(busy_start, busy_end)]} for every reservable, enabled
    host matching the filters; each allocation overlapping [start, end)
    widened by ``cleaning`` on both sides, as the allocator sees it."""
    properties = capability_api.host_filter(
        context, hypervisor_properties, resource_properties,
        private_visible=private_visible)
    host = host_models.ComputeHost
    alloc = lease_models.ComputeHostAllocation
    with db_session.reader.using(context) as session:
        traits = _trait_filter(session, resource_properties, requirement)
        overlapping = sa.and_(alloc.compute_host_id == host.id,
                              alloc.start_date < end + cleaning,
                              alloc.end_date > start - cleaning)
        rows = session.execute(
            sa.select(host.id, alloc.start_date, alloc.end_date)
            .outerjoin(alloc, overlapping)
            .where(host.reservable == sa.true(),
                   host.disabled == sa.false(), properties, *traits)
            .order_by(host.id, alloc.start_date))
        busy: dict = {}
        for host_id, b_start, b_end in rows:
            intervals = busy.setdefault(host_id, [])
            if b_start is not None:
                intervals.append((b_start - cleaning, b_end + cleaning))
        return busy
