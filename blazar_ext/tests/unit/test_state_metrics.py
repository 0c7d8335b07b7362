"""The state gauges from the database's counts."""

import datetime

import testtools

from blazar_ext.api import metrics as api_metrics

NOW = datetime.datetime(2026, 1, 1, 12, 0, 0)


def _raw(**changes) -> dict:
    """The database's counts, as metrics_db.state gives them."""
    state = {'leases': {'ACTIVE': 2}, 'degraded_leases': 1,
             'reservations': {('physical:host', 'active'): 2},
             'missing_resources': 1,
             'reservable': {'physical:host': 5},
             'reserved': {'physical:host': 2},
             'overdue_events': 0, 'oldest_overdue_event': None,
             'notifications_pending': 4,
             'deliveries': {'PENDING': 2, 'DEAD': 1}}
    state.update(changes)
    return state


def _state(**changes) -> dict:
    state = _raw(**changes)
    return {sample.name: (sample.labels, sample.value)
            for family in api_metrics._state_families(state, NOW)
            for sample in family.samples}


class TestStateFamilies(testtools.TestCase):

    def test_lag_is_the_age_of_the_oldest_overdue_event(self):
        found = _state(overdue_events=3, oldest_overdue_event=(
            NOW - datetime.timedelta(seconds=90)))
        self.assertEqual(({}, 90.0),
                         found['blazar_ext_event_loop_lag_seconds'])
        self.assertEqual(({}, 3), found['blazar_ext_events_overdue'])

    def test_no_overdue_event_is_no_lag(self):
        self.assertEqual(({}, 0.0),
                         _state()['blazar_ext_event_loop_lag_seconds'])

    def test_outbox_backlog_and_deliveries_by_status(self):
        families = {family.name: family for family in
                    api_metrics._state_families(_raw(), NOW)}
        self.assertEqual(4, families['blazar_ext_notifications_pending']
                         .samples[0].value)
        # Every status, zero included.
        self.assertEqual(
            {'PENDING': 2, 'IN_PROGRESS': 0, 'DELIVERED': 0, 'DEAD': 1},
            {sample.labels['status']: sample.value for sample in
             families['blazar_ext_webhook_deliveries'].samples})

    def test_labels(self):
        found = _state()
        self.assertEqual(({'status': 'ACTIVE'}, 2),
                         found['blazar_ext_leases'])
        self.assertEqual(({'resource_type': 'physical:host',
                           'status': 'active'}, 2),
                         found['blazar_ext_reservations'])
        self.assertEqual(({'resource_type': 'physical:host'}, 2),
                         found['blazar_ext_resources_reserved'])
