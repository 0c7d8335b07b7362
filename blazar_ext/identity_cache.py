"""Values made from an object and kept by the object's identity."""

from collections.abc import Callable
from collections.abc import Hashable


class IdentityCache:
    """Values made from objects that stand for themselves (schemas,
    statements, host filters: mostly module constants), kept by identity.

    Each value is kept beside its object, so that a kept id cannot come
    back as another object's. Past ``at_most`` entries all are forgotten
    at once: the bound only guards against a caller that makes a new
    object per request.
    """

    def __init__(self, at_most: int):
        self.at_most = at_most
        self._kept: dict = {}

    def get(self, obj, make: Callable[[], object],
            *variant: Hashable):
        """The value kept for ``obj`` (and ``variant``), else ``make()``
        kept."""
        key = (id(obj),) + variant
        found = self._kept.get(key)
        if found is not None and found[0] is obj:
            return found[1]
        value = make()
        if len(self._kept) >= self.at_most:
            self._kept.clear()
        self._kept[key] = (obj, value)
        return value

    def __len__(self) -> int:
        return len(self._kept)
