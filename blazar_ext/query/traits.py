"""Trait requirements: parse Placement's ``required`` syntax.

Pure code, no I/O. ``A,!B`` requires A and forbids B; ``in:A,B`` requires
at least one of A or B. Several ``required`` values are combined with AND.
The database layer compiles a :class:`TraitRequirement` to EXISTS / NOT
EXISTS clauses (blazar_ext.db.api.placement.trait.provider_filter).
"""

import dataclasses
import re

TRAIT_NAME = re.compile(r'^[A-Z0-9_]{1,255}$')


class TraitRequirementError(ValueError):
    """A ``required`` value that cannot be parsed; the message names it."""


@dataclasses.dataclass(frozen=True)
class TraitRequirement:
    """All of ``required``, none of ``forbidden``, one of each ``any_of``."""

    required: frozenset = frozenset()
    forbidden: frozenset = frozenset()
    any_of: tuple = ()

    @property
    def names(self) -> frozenset:
        """Every trait name mentioned, to check that each one exists."""
        names = set(self.required) | set(self.forbidden)
        for group in self.any_of:
            names |= group
        return frozenset(names)

    def __bool__(self) -> bool:
        return bool(self.required or self.forbidden or self.any_of)


def _name(element: str, value: str) -> str:
    if not TRAIT_NAME.match(element):
        raise TraitRequirementError(
            "Invalid trait name %r in required value %r: a trait name is "
            "1 to 255 characters from A-Z, 0-9 and _." % (element, value))
    return element


def _elements(text: str, value: str) -> list:
    elements = [e.strip() for e in text.split(',')]
    for element in elements:
        if not element:
            raise TraitRequirementError(
                "Invalid required value %r: it has an empty element."
                % value)
    return elements


def parse(values, allow_forbidden: bool = True,
          allow_any_of: bool = True) -> TraitRequirement:
    """Parse one or several ``required`` values into a requirement.

    Raises TraitRequirementError naming the offending element for an empty
    element, a malformed name, ``!`` or ``in:`` when not allowed, or a
    trait both required and forbidden.
    """
    if isinstance(values, str):
        values = [values]
    required, forbidden, any_of = set(), set(), []
    for value in values:
        text = value.strip()
        if allow_any_of and text.startswith('in:'):
            group = set()
            for element in _elements(text[3:], value):
                if element.startswith('!'):
                    raise TraitRequirementError(
                        "Invalid required value %r: forbidden trait %r "
                        "cannot be used in an in: list." % (value, element))
                group.add(_name(element, value))
            if len(group) == 1:
                required |= group
            else:
                any_of.append(frozenset(group))
            continue
        for element in _elements(text, value):
            if element.startswith('!'):
                if not allow_forbidden:
                    raise TraitRequirementError(
                        "Invalid trait name %r in required value %r: "
                        "forbidden traits need microversion 1.22 or later."
                        % (element, value))
                forbidden.add(_name(element[1:], value))
            else:
                required.add(_name(element, value))
    both = required & forbidden
    for group in any_of:
        if group <= forbidden:
            both |= group
    if both:
        raise TraitRequirementError(
            "Conflicting required and forbidden traits found: %s"
            % ', '.join(sorted(both)))
    return TraitRequirement(frozenset(required), frozenset(forbidden),
                            tuple(any_of))
