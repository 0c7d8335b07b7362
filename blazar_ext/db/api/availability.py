"""Busy intervals of the hosts a request matches, for the availability
route: one query over hosts and the allocations overlapping a window."""

import datetime

import sqlalchemy as sa

from blazar_ext.db.api import host_filter
from blazar_ext.db.api import host_properties
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext.query import traits as trait_query


def host_busy_intervals(context, resource_properties: str,
                        hypervisor_properties: str,
                        requirement: trait_query.TraitRequirement,
                        start: datetime.datetime, end: datetime.datetime,
                        cleaning: datetime.timedelta,
                        private_visible: bool) -> dict:
    """{host_id: [(busy_start, busy_end)]} for every reservable, enabled
    host matching the filters; each allocation overlapping [start, end)
    widened by ``cleaning`` on both sides, as the allocator sees it."""
    query = host_properties.HostQuery(hypervisor_properties,
                                      resource_properties)
    host = host_models.ComputeHost
    alloc = lease_models.ComputeHostAllocation
    with db_session.reader.using(context) as session:
        condition = host_filter.build(session, query, requirement,
                                      private_visible=private_visible)
        overlapping = sa.and_(alloc.compute_host_id == host.id,
                              alloc.start_date < end + cleaning,
                              alloc.end_date > start - cleaning)
        rows = session.execute(
            sa.select(host.id, alloc.start_date, alloc.end_date)
            .outerjoin(alloc, overlapping)
            .where(host.reservable == sa.true(),
                   host.disabled == sa.false(), condition)
            .order_by(host.id, alloc.start_date))
        busy: dict = {}
        for host_id, b_start, b_end in rows:
            intervals = busy.setdefault(host_id, [])
            if b_start is not None:
                intervals.append((b_start - cleaning, b_end + cleaning))
        return busy
