"""outbox.primitive is jsonutils.to_primitive (convert_datetime), faster
for a lease's shapes: the same output for every kind of value."""

import datetime
import decimal
import uuid

from oslo_serialization import jsonutils

from blazar_ext.db.api import outbox
from blazar_ext.tests import base


class TestPrimitive(base.TestCase):

    def test_same_as_to_primitive(self):
        value = {
            'id': 'a', 'n': 3, 'f': 1.5, 'b': True, 'none': None,
            'when': datetime.datetime(2026, 11, 27, 6, 0, 0, 12),
            'whole': datetime.datetime(2026, 11, 27, 6, 0),
            'early': datetime.datetime(999, 1, 2, 3, 4, 5),
            'zoned': datetime.datetime(2026, 1, 1,
                                       tzinfo=datetime.timezone.utc),
            'day': datetime.date(2026, 11, 27),
            'price': decimal.Decimal('1.50'), 'uuid': uuid.UUID(int=7),
            'pair': (1, 'x'), 'set': {'only'},
            'reservations': [{'id': 'r', 'events': [
                {'time': datetime.datetime(2026, 1, 1)}]}]}
        expected = jsonutils.to_primitive(value, convert_datetime=True)
        self.assertEqual(expected, outbox.primitive(value))
        self.assertEqual(jsonutils.dumps(expected),
                         jsonutils.dumps(outbox.primitive(value)))
