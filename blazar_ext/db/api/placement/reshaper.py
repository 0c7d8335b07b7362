"""POST /reshaper: inventories and allocations moved in one transaction.

Nova moves a host's resources from the root to new child providers (VGPU
to a GPU child, say) and the allocations that use them, at once. Each
provider first gets the union of its current and new inventories, so the
moved allocations always fit; then the allocations are replaced; then
each provider gets exactly its new inventories (a class still used is an
InventoryInUse, and everything rolls back).
"""

from blazar_ext.db.api.placement import allocation as alloc_api
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api import retry
from blazar_ext.db import session as db_session
from blazar_ext import exceptions


class GenerationMismatch(exceptions.ConcurrentUpdateDetected):
    """A provider's generation is not the one the caller read."""


@retry.on_deadlock
def reshape(context, inventories: dict, allocations: dict) -> None:
    """``inventories``: {provider uuid: (generation, {class: values})};
    ``allocations``: as allocation.replace_allocations() takes them."""
    with db_session.writer.using(context) as session:
        providers = {}
        for uuid, (generation, _) in inventories.items():
            provider = provider_base.get_model(session, uuid)
            if provider.generation != generation:
                raise GenerationMismatch(
                    'resource provider generation conflict for provider '
                    '%s: actual: %s, given: %s'
                    % (uuid, provider.generation, generation))
            providers[uuid] = provider
        for uuid, (_, wanted) in inventories.items():
            provider = providers[uuid]
            union = inv_api.inventories_of(session, [provider.id])[
                provider.id]
            union.update(wanted)
            inv_api.set_inventories(context, uuid, union,
                                    provider.generation)
        if allocations:
            alloc_api.replace_in_transaction(context, allocations)
        for uuid, (_, wanted) in inventories.items():
            inv_api.set_inventories(context, uuid, wanted,
                                    providers[uuid].generation)
