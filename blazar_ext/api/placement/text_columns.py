"""JSON text for thousands of items, written column by column.

A large listing is one item format repeated: constant text between a few
values per item. Formatting each item in Python costs microseconds; here
each value is a column (a list, one entry per item, already JSON text)
and each constant one string, laid into a list by slice assignment and
joined, so the per-item work happens in C.

A listing of thousands of providers is megabytes. A str and a bytes of
that size are each fresh memory from the kernel, a page fault per 4 KiB
on every request, which cost more than writing the text. So a document
is a Body: written and encoded a batch of items at a time while the
server sends it, every batch reusing the memory the last one freed.
"""

import json
import typing

quote = json.encoder.encode_basestring_ascii

# Items per batch, and the least characters per chunk of a Body: tens of
# kilobytes, under the size from which malloc maps fresh pages per
# allocation, and mostly under the block the server writes whole
# (blazar_ext.wsgi.blocks.WRITE_BLOCK): a provider is about 800.
_BATCH = 64
_CHUNK = 32 * 1024


class Items:
    """``count`` items of one format, comma-separated.

    ``pieces`` alternates text and columns: a str is the same text in
    every item, a list holds one text per item (``count`` of them). The
    first piece, which opens each item, is a str. Every text is ASCII
    (as quote() and json.dumps() write it), so a character is a byte.
    """

    def __init__(self, pieces: list, count: int):
        # Adjacent texts as one: fewer parts to lay out and join per item.
        self.pieces = []
        for piece in pieces:
            if (isinstance(piece, str) and self.pieces
                    and isinstance(self.pieces[-1], str)):
                self.pieces[-1] += piece
            else:
                self.pieces.append(piece)
        self.count = count

    def __len__(self) -> int:
        """Characters in the text, without writing it."""
        if not self.count:
            return 0
        column_lengths = {}
        total = self.count - 1  # the commas
        for piece in self.pieces:
            if isinstance(piece, str):
                total += len(piece) * self.count
            else:
                key = id(piece)
                if key not in column_lengths:
                    column_lengths[key] = sum(map(len, piece))
                total += column_lengths[key]
        return total

    def batches(self) -> typing.Iterator[str]:
        """The text, a batch of items at a time."""
        width = len(self.pieces)
        opening = self.pieces[0]
        for start in range(0, self.count, _BATCH):
            count = min(_BATCH, self.count - start)
            parts = [''] * (width * count)
            for index, piece in enumerate(self.pieces):
                parts[index::width] = (
                    [piece] * count if isinstance(piece, str)
                    else piece[start:start + count])
            parts[width::width] = [',' + opening] * (count - 1)
            if start:
                parts[0] = ',' + opening
            yield ''.join(parts)

    def text(self) -> str:
        return ''.join(self.batches())


class Body:
    """A JSON document of str and Items segments, as a WSGI app_iter of
    ASCII chunks written while it is sent; len() is its byte count."""

    def __init__(self, segments: list):
        self.segments = segments

    def __len__(self) -> int:
        return sum(map(len, self.segments))

    def _texts(self) -> typing.Iterator[str]:
        for segment in self.segments:
            if isinstance(segment, str):
                yield segment
            else:
                yield from segment.batches()

    def __iter__(self) -> typing.Iterator[bytes]:
        buffered, size = [], 0
        for text in self._texts():
            buffered.append(text)
            size += len(text)
            if size >= _CHUNK:
                yield ''.join(buffered).encode('ascii')
                buffered, size = [], 0
        if buffered:
            yield ''.join(buffered).encode('ascii')

    def text(self) -> str:
        return b''.join(self).decode('ascii')


def document(*segments) -> Body:
    """The Body of ``segments``: str or Items."""
    return Body(list(segments))


def quoted(values) -> list:
    """JSON strings of ``values`` (as the encoder writes them: ASCII)."""
    return list(map(quote, values))


def nullable(values) -> list:
    """JSON strings of ``values``, null for None."""
    return ['null' if value is None else quote(value) for value in values]
