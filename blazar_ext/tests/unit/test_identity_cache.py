"""IdentityCache: values kept by their object's identity, bounded."""

from blazar_ext import identity_cache
from blazar_ext.tests import base


class TestIdentityCache(base.TestCase):

    def setUp(self):
        super().setUp()
        self.made = []
        self.cache = identity_cache.IdentityCache(3)

    def make(self, value):
        def made():
            self.made.append(value)
            return value
        return made

    def test_made_once_per_object(self):
        schema = {'type': 'object'}
        self.assertEqual('a', self.cache.get(schema, self.make('a')))
        self.assertEqual('a', self.cache.get(schema, self.make('b')))
        self.assertEqual(['a'], self.made)

    def test_an_equal_object_is_another_key(self):
        first, second = {'type': 'object'}, {'type': 'object'}
        self.cache.get(first, self.make('a'))
        self.assertEqual('b', self.cache.get(second, self.make('b')))
        self.assertEqual(['a', 'b'], self.made)

    def test_variants_of_one_object_are_kept_apart(self):
        schema = {}
        self.cache.get(schema, self.make('locked'), True)
        self.assertEqual('open', self.cache.get(schema, self.make('open'),
                                                False))
        self.assertEqual('locked', self.cache.get(schema, self.make('x'),
                                                  True))
        self.assertEqual(['locked', 'open'], self.made)

    def test_none_is_kept_as_a_value(self):
        schema = {}
        self.assertIsNone(self.cache.get(schema, self.make(None)))
        self.assertIsNone(self.cache.get(schema, self.make('later')))
        self.assertEqual([None], self.made)

    def test_past_the_bound_all_is_forgotten(self):
        objects = [{} for _ in range(4)]
        for n, obj in enumerate(objects):
            self.cache.get(obj, self.make(n))
        self.assertEqual(1, len(self.cache))
        self.cache.get(objects[0], self.make('again'))
        self.assertEqual([0, 1, 2, 3, 'again'], self.made)

    def test_a_reused_id_is_not_taken_for_the_old_object(self):
        # The id of an object dropped can be given to a new one; the
        # object kept beside the value tells them apart.
        kept = {}
        self.cache.get(kept, self.make('old'))
        key = (id(kept),)
        impostor = {}
        self.cache._kept[(id(impostor),)] = self.cache._kept.pop(key)
        self.assertEqual('new', self.cache.get(impostor, self.make('new')))
