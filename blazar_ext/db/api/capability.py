"""Extra capability names, shared by every resource type that has them."""

import sqlalchemy as sa

from blazar_ext.db.api import host_properties
from blazar_ext.db.models import host as host_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions


def get_or_create_ids(session, resource_type: str, names,
                      private_default: bool = False) -> dict:
    """Map each capability name to its id, creating missing names.

    Must run inside a writer transaction; ``session`` is that transaction's.
    A concurrent creator of the same name loses the unique constraint race
    and retries through oslo.db's DBDuplicateEntry handling upstream.
    """
    names = set(names)
    if not names:
        return {}
    model = host_models.ExtraCapability
    found = dict(session.execute(
        sa.select(model.capability_name, model.id).where(
            model.resource_type == resource_type,
            model.capability_name.in_(names))).all())
    for name in sorted(names - set(found)):
        capability = model(resource_type=resource_type, capability_name=name,
                           private=private_default)
        session.add(capability)
        session.flush()
        found[name] = capability.id
    return found


# --- Resource properties discovery -----------------------------------------
#
# A resource type has properties when a table holds one row per (resource,
# capability) value with ``capability_id`` and ``capability_value`` columns.
# Each resource type with extra capabilities registers that table here.
_VALUE_MODELS = {
    'physical:host': host_models.ComputeHostExtraCapability,
}


def register_value_model(resource_type: str, model) -> None:
    """Declare the capability value table of ``resource_type``."""
    _VALUE_MODELS[resource_type] = model


def resource_types() -> list:
    """Resource types that have extra capabilities, sorted."""
    return sorted(_VALUE_MODELS)


def _value_model(resource_type: str):
    try:
        return _VALUE_MODELS[resource_type]
    except KeyError:
        raise exceptions.ResourceTypeNotFound(resource_type=resource_type)


def _sorted_values(values) -> list:
    """Numbers in numeric order when every value is a number, else text."""
    values = list(values)
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def _distinct_values(session, value_model, capability_id: str) -> list:
    # A range scan of the (capability_id, capability_value) index, read in
    # index order, so the database groups without sorting.
    return _sorted_values(session.scalars(
        sa.select(value_model.capability_value)
        .where(value_model.capability_id == capability_id)
        .group_by(value_model.capability_value)))


def property_list(context, resource_type: str, include_private: bool,
                  detail: bool) -> list:
    """Capabilities of ``resource_type`` that at least one resource has.

    Each item is {'property', 'private'} plus, with ``detail``, 'values':
    the distinct values. The database computes both from the
    (capability_id, capability_value) index; no resource row is loaded.
    """
    value_model = _value_model(resource_type)
    names = host_models.ExtraCapability
    where = [names.resource_type == resource_type]
    if not include_private:
        where.append(names.private == sa.false())
    with db_session.reader.using(context) as session:
        if not detail:
            in_use = sa.exists().where(value_model.capability_id == names.id)
            rows = session.execute(
                sa.select(names.capability_name, names.private)
                .where(*where, in_use)
                .order_by(names.capability_name))
            return [{'property': name, 'private': private}
                    for name, private in rows]
        known = {capability_id: (name, private)
                 for capability_id, name, private in session.execute(
                     sa.select(names.id, names.capability_name,
                               names.private).where(*where))}
        # One scan of the (capability_id, capability_value) index, grouped
        # in index order: one query, where one per name cost more in
        # round trips than the scan itself.
        values: dict = {}
        for capability_id, value in session.execute(
                sa.select(value_model.capability_id,
                          value_model.capability_value)
                .where(value_model.capability_id.in_(list(known)))
                .group_by(value_model.capability_id,
                          value_model.capability_value)):
            values.setdefault(capability_id, []).append(value)
        items = [{'property': known[capability_id][0],
                  'private': known[capability_id][1],
                  'values': _sorted_values(found)}
                 for capability_id, found in values.items()]
        return sorted(items, key=lambda item: item['property'])


def _get_name_row(session, resource_type: str, name: str):
    names = host_models.ExtraCapability
    row = session.execute(
        sa.select(names.id, names.private).where(
            names.resource_type == resource_type,
            names.capability_name == name)).first()
    if row is None:
        raise exceptions.ResourcePropertyNotFound(
            property=name, resource_type=resource_type)
    return row


def property_get(context, resource_type: str, name: str) -> dict:
    """{'property', 'private', 'values'} of one capability name.

    ResourceTypeNotFound or ResourcePropertyNotFound when unknown. The
    caller decides whether a private property may be shown.
    """
    value_model = _value_model(resource_type)
    with db_session.reader.using(context) as session:
        capability_id, private = _get_name_row(session, resource_type, name)
        return {'property': name, 'private': private,
                'values': _distinct_values(session, value_model,
                                           capability_id)}


def property_record(context, resource_type: str, name: str) -> dict:
    """The capability name's row as upstream Blazar's resource_property:
    {id, resource_type, property_name, private, created_at, updated_at}."""
    names = host_models.ExtraCapability
    with db_session.reader.using(context) as session:
        row = session.execute(
            sa.select(names.id, names.resource_type, names.capability_name,
                      names.private, names.created_at, names.updated_at)
            .where(names.resource_type == resource_type,
                   names.capability_name == name)).first()
    if row is None:
        raise exceptions.ResourcePropertyNotFound(
            property=name, resource_type=resource_type)
    return dict(zip(('id', 'resource_type', 'property_name', 'private',
                     'created_at', 'updated_at'), row))


def property_set_private(context, resource_type: str, name: str,
                         private: bool) -> dict:
    """Mark a capability name private or public; returns property_get()."""
    _value_model(resource_type)
    with db_session.writer.using(context) as session:
        capability_id, _ = _get_name_row(session, resource_type, name)
        session.execute(
            sa.update(host_models.ExtraCapability)
            .where(host_models.ExtraCapability.id == capability_id)
            .values(private=private))
        return property_get(context, resource_type, name)


# --- Property filters -------------------------------------------------------


def known_capabilities(context, resource_type: str, names=None) -> dict:
    """{name: private} of the capability names of ``resource_type``.

    With ``names``, only those (the ones an expression mentions) are looked
    up, through the (resource_type, capability_name) unique index.
    """
    model = host_models.ExtraCapability
    query = sa.select(model.capability_name, model.private).where(
        model.resource_type == resource_type)
    if names is not None:
        names = set(names)
        if not names:
            return {}
        query = query.where(model.capability_name.in_(names))
    with db_session.reader.using(context) as session:
        return {name: bool(private)
                for name, private in session.execute(query)}


def host_filter(context, hypervisor_properties, resource_properties,
                private_visible: bool = True):
    """A condition over ComputeHost for both property expressions.

    Loads the capability names the expressions mention, then compiles them
    (blazar_ext.db.api.host_properties); Invalid (400) names a bad property.
    """
    names = host_properties.capability_names(hypervisor_properties,
                                             resource_properties)
    known = known_capabilities(context, host_properties.RESOURCE_TYPE, names)
    return host_properties.compile_host_filter(
        hypervisor_properties, resource_properties,
        private_visible=private_visible, known_capabilities=known)
