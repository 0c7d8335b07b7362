"""JSON text for thousands of items, written column by column.

A large listing is one item format repeated: constant text between a few
values per item. Formatting each item in Python costs microseconds; here
each value is a column (a list, one entry per item, already JSON text)
and each constant one string, laid into one list by slice assignment and
joined once, so the per-item work happens in C.
"""

import json

quote = json.encoder.encode_basestring_ascii


def items(pieces: list, count: int) -> str:
    """The ``count`` items, comma-separated.

    ``pieces`` alternates text and columns: a str is the same text in
    every item, a list holds one text per item (``count`` of them). The
    first piece, which opens each item, is a str.
    """
    if not count:
        return ''
    width = len(pieces)
    parts = [''] * (width * count)
    for index, piece in enumerate(pieces):
        parts[index::width] = ([piece] * count if isinstance(piece, str)
                               else piece)
    parts[width::width] = [',' + pieces[0]] * (count - 1)
    return ''.join(parts)


def quoted(values) -> list:
    """JSON strings of ``values`` (as the encoder writes them: ASCII)."""
    return list(map(quote, values))


def nullable(values) -> list:
    """JSON strings of ``values``, null for None."""
    return ['null' if value is None else quote(value) for value in values]
