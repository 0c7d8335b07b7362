"""New host ids: UUIDs that sort in the order they were made."""

import threading
import uuid

from oslotest import base

from blazar_ext.db.models import base as model_base


class TestTimeOrderedUUID(base.BaseTestCase):

    def test_version_7_uuids_in_the_order_made(self):
        ids = [model_base.new_time_ordered_uuid() for _ in range(10000)]
        self.assertEqual(sorted(ids), ids)
        self.assertEqual(len(ids), len(set(ids)))
        for value in ids[:50]:
            parsed = uuid.UUID(value)
            self.assertEqual((7, uuid.RFC_4122),
                             (parsed.version, parsed.variant))
            self.assertEqual(value, str(parsed))

    def test_threads_never_make_the_same_id(self):
        made = []

        def make():
            made.extend(model_base.new_time_ordered_uuid()
                        for _ in range(2000))
        threads = [threading.Thread(target=make) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(8000, len(set(made)))
