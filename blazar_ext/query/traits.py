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
    """A ``required`` value that cannot be parsed; the message names it.

    ``kind`` says what is wrong (one of the KINDS), ``value`` is the value
    at fault, so an API can word the error its own way.
    """

    def __init__(self, message: str, kind: str, value: str = ''):
        super().__init__(message)
        self.kind = kind
        self.value = value


# What a TraitRequirementError's ``kind`` may be.
EMPTY = 'empty'                      # an empty element ('A,,B', '!')
NAME = 'name'                        # a malformed trait name
ANY_OF_UNSUPPORTED = 'any_of'        # ``in:`` where it is not allowed
FORBIDDEN_UNSUPPORTED = 'forbidden'  # ``!`` where it is not allowed
FORBIDDEN_IN_ANY_OF = 'forbidden_in_any_of'  # 'in:A,!B'
CONFLICT = 'conflict'                # a trait both required and forbidden
KINDS = (EMPTY, NAME, ANY_OF_UNSUPPORTED, FORBIDDEN_UNSUPPORTED,
         FORBIDDEN_IN_ANY_OF, CONFLICT)


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


def _check_name(name: str, value: str) -> None:
    if not TRAIT_NAME.match(name):
        raise TraitRequirementError(
            "Invalid trait name %r in required value %r: a trait name is "
            "1 to 255 characters from A-Z, 0-9 and _." % (name, value),
            NAME, value)


def _empty(value: str) -> TraitRequirementError:
    return TraitRequirementError(
        "Invalid required value %r: it has an empty element." % value,
        EMPTY, value)


def parse_value(value: str, allow_forbidden: bool = True,
                allow_any_of: bool = True) -> tuple:
    """(groups, forbidden) of one ``required`` value: each group a
    frozenset of names of which one is required (a single name: that name
    required), ``forbidden`` the names forbidden. Names are not checked.

    Raises TraitRequirementError (EMPTY, ANY_OF_UNSUPPORTED,
    FORBIDDEN_IN_ANY_OF or FORBIDDEN_UNSUPPORTED).
    """
    if value.startswith('in:'):
        if not allow_any_of:
            raise TraitRequirementError(
                "Invalid required value %r: 'in:' is not supported here."
                % value, ANY_OF_UNSUPPORTED, value)
        names = [name.strip() for name in value[3:].split(',')]
        if not all(names):
            raise _empty(value)
        for name in names:
            if name.startswith('!'):
                raise TraitRequirementError(
                    "Invalid required value %r: forbidden trait %r cannot "
                    "be used in an in: list." % (value, name),
                    FORBIDDEN_IN_ANY_OF, value)
        return [frozenset(names)], frozenset()
    names = [name.strip() for name in value.split(',')]
    forbidden = frozenset(name[1:] for name in names
                          if name.startswith('!'))
    if not all(names) or not all(forbidden):
        raise _empty(value)
    if forbidden and not allow_forbidden:
        raise TraitRequirementError(
            "Invalid required value %r: forbidden traits (%s) need "
            "microversion 1.22 or later." % (
                value, ', '.join('!' + name for name in sorted(forbidden))),
            FORBIDDEN_UNSUPPORTED, value)
    return ([frozenset([name]) for name in names
             if not name.startswith('!')], forbidden)


def conflicts(groups: list, forbidden: frozenset) -> list:
    """The groups whose every name is forbidden: nothing can meet them."""
    return [group for group in groups if group <= forbidden]


def requirement(groups: list, forbidden: frozenset) -> 'TraitRequirement':
    """The TraitRequirement of parsed groups and forbidden names."""
    return TraitRequirement(
        required=frozenset(name for group in groups if len(group) == 1
                           for name in group),
        forbidden=frozenset(forbidden),
        any_of=tuple(group for group in groups if len(group) > 1))


def parse(values, allow_forbidden: bool = True,
          allow_any_of: bool = True) -> 'TraitRequirement':
    """Parse one or several ``required`` values into a requirement, each
    value stripped and each name checked (TRAIT_NAME).

    Raises TraitRequirementError naming the offending value or element
    for an empty element, a malformed name, ``!`` or ``in:`` when not
    allowed, or a trait both required and forbidden.
    """
    if isinstance(values, str):
        values = [values]
    groups, forbidden = [], frozenset()
    for value in values:
        value = value.strip()
        more, less = parse_value(value, allow_forbidden, allow_any_of)
        for name in [n for group in more for n in sorted(group)] + sorted(
                less):
            _check_name(name, value)
        groups += more
        forbidden |= less
    both = conflicts(groups, forbidden)
    if both:
        raise TraitRequirementError(
            "Conflicting required and forbidden traits found: %s"
            % ', '.join(sorted(set().union(*both))), CONFLICT)
    return requirement(groups, forbidden)
