"""What a lease holds, as the pricing of blazar_ext.enforcement.pricing
needs it, and which hosts a host rate's expression matches."""

import functools
import json

import sqlalchemy as sa
from sqlalchemy.sql import elements
from sqlalchemy.sql import operators
from sqlalchemy.sql import selectable
from sqlalchemy.sql import visitors

from blazar_ext.db.api import host_properties
from blazar_ext.db.api import transaction
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext import exceptions

HOST_TYPE = 'physical:host'
FIP_TYPE = 'virtual:floatingip'


def held(session, reservations: list, lease_id: str | None = None,
         expressions: tuple = ()) -> dict:
    """{reservation id: facts} of the reservations (dicts with id and
    resource_type): host ids, floating IP count, or instance size. Only
    the tables of the types present are read; ``lease_id`` selects the
    lease's reservations by one parameter instead of a list, and then
    the same query tells which of the host rate ``expressions`` (JSON)
    each host matches first: facts' ``first``, {host id: index}."""
    facts = {r['id']: {'resource_type': r['resource_type'], 'count': 0,
                       'host_ids': [], 'vcpus': 0, 'memory_mb': 0,
                       'first': {}}
             for r in reservations}
    if not facts:
        return facts
    types = {r['resource_type'] for r in reservations}
    if lease_id is not None:
        reservation = lease_models.Reservation
        ids = sa.select(reservation.id).where(
            reservation.lease_id == lease_id).scalar_subquery()
    else:
        ids = list(facts)
    if HOST_TYPE in types:
        alloc = lease_models.ComputeHostAllocation
        if lease_id is not None:
            rows = transaction.core_execute(
                session, _lease_hosts(tuple(expressions)),
                {'lease_id': lease_id})
        else:
            rows = session.execute(
                sa.select(alloc.reservation_id, alloc.compute_host_id,
                          sa.null()).where(alloc.reservation_id.in_(ids)))
        for reservation_id, host_id, first in rows:
            facts[reservation_id]['host_ids'].append(host_id)
            facts[reservation_id]['count'] += 1
            if first is not None:
                facts[reservation_id]['first'][host_id] = first
    if FIP_TYPE in types:
        fips = fip_models.FloatingIPAllocation
        for reservation_id, count in session.execute(
                sa.select(fips.reservation_id, sa.func.count())
                .where(fips.reservation_id.in_(ids))
                .group_by(fips.reservation_id)):
            facts[reservation_id]['count'] = count
    if types - {HOST_TYPE, FIP_TYPE}:
        detail = instance_models.InstanceReservation
        for row in session.execute(
                sa.select(detail.reservation_id, detail.amount,
                          detail.vcpus, detail.memory_mb)
                .where(detail.reservation_id.in_(ids))):
            facts[row.reservation_id].update(
                count=row.amount, vcpus=row.vcpus, memory_mb=row.memory_mb)
    return facts


def _correlated(element):
    """``id [NOT] IN (SELECT owner ...)`` as ``[NOT] EXISTS (SELECT owner
    ... WHERE owner = id)``, or None to leave ``element`` as it is."""
    if not isinstance(element, elements.BinaryExpression) or \
            element.operator not in (operators.in_op, operators.not_in_op) \
            or not isinstance(element.right, selectable.ScalarSelect):
        return None
    select = element.right.element
    exists = sa.exists(select.where(
        select.selected_columns[0] == element.left))
    return exists if element.operator is operators.in_op else ~exists


@functools.lru_cache(maxsize=64)
def _lease_hosts(expressions_json: tuple):
    """(reservation id, host id, index of the first expression the host
    matches or NULL) of a lease's host allocations; built once per set of
    rates (the lease create path)."""
    alloc = lease_models.ComputeHostAllocation
    reservation = lease_models.Reservation
    host = host_models.ComputeHost
    query = (sa.select(alloc.reservation_id, alloc.compute_host_id,
                       _first_case(expressions_json))
             .select_from(alloc)
             .join(reservation, reservation.id == alloc.reservation_id)
             .where(reservation.lease_id == sa.bindparam('lease_id')))
    if expressions_json:
        # The expressions test the host's row and its capabilities.
        query = query.join(host, host.id == alloc.compute_host_id)
    return query


def _first_case(expressions_json: tuple):
    """The index of the first expression ``compute_hosts.id`` matches."""
    if not expressions_json:
        return sa.null()
    return sa.case(*((_host_condition(e), i)
                     for i, e in enumerate(expressions_json)), else_=None)


@functools.lru_cache(maxsize=256)
def _host_condition(expression_json: str):
    # Rates change rarely and their expressions compile to the same
    # condition every time (no per-caller visibility: rates are the
    # operator's).
    condition = host_properties.HostQuery('', expression_json).compile(
        private_visible=True)
    # The candidates query tests capabilities as semi-joins, best over
    # all hosts; a rate tests the few hosts of one lease, where SQLite
    # would still build each capability's whole list of matching hosts
    # (3 ms for 3,000 of 10,000): one index probe per host instead.
    return visitors.replacement_traverse(condition, {}, _correlated)


@functools.lru_cache(maxsize=64)
def _first_matching_statement(expressions_json: tuple):
    host = host_models.ComputeHost
    return sa.select(host.id, _first_case(expressions_json)).where(
        host.id.in_(sa.bindparam('host_ids', expanding=True)))


def check_rate_expression(expression, where: str) -> None:
    """Invalid naming ``where`` when a host rate's expression, parsed,
    still cannot become a condition on hosts (``["<", "$memory_mb",
    "abc"]``): it is refused when set, not on every lease it would
    price."""
    try:
        _host_condition(json.dumps(expression, sort_keys=True))
    except exceptions.Invalid as exc:
        reason = str(exc.kwargs.get('reason', exc))
        raise exceptions.Invalid(reason=reason.replace(
            'resource_properties', where, 1)) from exc


def as_json(expressions: list) -> tuple:
    """Host rate expressions as the hashable key the queries take."""
    return tuple(json.dumps(e, sort_keys=True) for e in expressions)


def first_matching(session, expressions: list, host_ids) -> dict:
    """{host id: index of the first of ``expressions`` it matches} for
    the hosts among ``host_ids`` that match one, in one query."""
    if not host_ids or not expressions:
        return {}
    statement = _first_matching_statement(as_json(expressions))
    return {host_id: index for host_id, index in session.execute(
        statement, {'host_ids': list(host_ids)}) if index is not None}


def host_vcpus(session, host_ids: list) -> dict:
    """{host id: vcpus} of the hosts."""
    if not host_ids:
        return {}
    host = host_models.ComputeHost
    return dict(session.execute(
        sa.select(host.id, host.vcpus).where(host.id.in_(host_ids))).all())
