"""What the maintenance window tests of every resource type share
(api/test_maintenance.py: hosts; api/test_floatingip_maintenance.py:
floating IPs)."""

import datetime

from oslo_utils import timeutils

from blazar_ext.tests import base


def _at(minutes: int) -> str:
    return base.lease_date(minutes)


class MaintenanceChecks:
    """What the maintenance tests of every resource type share."""

    #: The resource collection, and a reference to no resource of it.
    collection = ''
    unknown = 'nope'

    def schedule(self, resource: dict, start: int, end: int, expect=201,
                 **extra) -> dict:
        body = {'start_date': _at(start), 'end_date': _at(end),
                'reason': 'new disks'}
        body.update(extra)
        resp = self.request('POST', '%s/%s/maintenance'
                            % (self.collection, resource['id']), body)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json()

    def run_maintenance(self, minutes: int) -> list:
        now = timeutils.utcnow() + datetime.timedelta(minutes=minutes)
        return self.manager.service.maintenance_task.run_once(now)

    def assert_all_moved(self, answer: dict, leases: list,
                         notifications: list, placed) -> None:
        """Every lease of ``leases`` moved (``placed(lease)`` checks
        where to), flagged resources_changed, and notified."""
        lease_ids = sorted(lease['id'] for lease in leases)
        self.assertEqual([], answer['unmovable'])
        self.assertEqual(lease_ids,
                         sorted(m['lease_id'] for m in answer['moved']))
        for lease in leases:
            placed(lease)
            [reservation] = self.show(lease['id'])['reservations']
            self.assertTrue(reservation['resources_changed'])
        scheduled = [n[1] for n in notifications
                     if n[1]['event_type'] == 'lease.maintenance.scheduled']
        self.assertEqual(lease_ids,
                         sorted(n['payload']['id'] for n in scheduled))

    def assert_unmovable_then_degraded(self, resource: dict, lease: dict,
                                       shown) -> None:
        """With nowhere to move ``lease``: the dry run reports it and
        writes nothing; the window reports it and leaves it; it is
        degraded once the window starts, and the resource (as ``shown()``
        answers it) out of service until the window ends."""
        answer = self.schedule(resource, 30, 600, expect=200, dry_run=True)
        self.assertTrue(answer['dry_run'])
        self.assertEqual([], answer['moved'])
        self.assertEqual([lease['id']],
                         [u['lease_id'] for u in answer['unmovable']])
        self.assertEqual([], self.request(
            'GET', '%s/%s/maintenance' % (self.collection, resource['id'])
        ).json()['maintenances'])
        answer = self.schedule(resource, 30, 600)
        self.assertEqual([lease['id']],
                         [u['lease_id'] for u in answer['unmovable']])
        self.assertFalse(self.show(lease['id'])['degraded'])
        self.assertEqual([(answer['maintenance']['id'], 'active')],
                         self.run_maintenance(31))
        self.assertFalse(shown()['reservable'])
        self.assertTrue(self.show(lease['id'])['degraded'])
        self.assertEqual([(answer['maintenance']['id'], 'done')],
                         self.run_maintenance(601))
        self.assertTrue(shown()['reservable'])

    def assert_bad_input(self, resource: dict) -> None:
        """Bad bodies are 400s naming the field, an unknown resource a
        404, a member a 403; nothing is written."""
        path = '%s/%s/maintenance' % (self.collection, resource['id'])
        for field, body in (
                ('end_date', {'start_date': _at(60), 'end_date': _at(30)}),
                ('start_date', {'start_date': 'tomorrow',
                                'end_date': _at(30)}),
                ('start_date', {'start_date': _at(-600),
                                'end_date': _at(30)}),
                ('end_date', {'start_date': _at(60)}),
                ('dry_run', {'start_date': _at(30), 'end_date': _at(60),
                             'dry_run': 'perhaps'}),
                ('color', {'start_date': _at(30), 'end_date': _at(60),
                           'color': 'red'})):
            resp = self.request('POST', path, body)
            self.assertEqual(400, resp.status, resp.text)
            self.assertIn(field, resp.json()['error_message'], body)
        resp = self.request('POST', '%s/%s/maintenance' % (
            self.collection, self.unknown),
            {'start_date': _at(30), 'end_date': _at(60)})
        self.assertEqual(404, resp.status, resp.text)
        resp = self.request('POST', path, {'start_date': _at(30),
                                           'end_date': _at(60)},
                            headers={'X-Project-Id': 'p', 'X-User-Id': 'u',
                                     'X-Roles': 'member'})
        self.assertEqual(403, resp.status, resp.text)
        self.assertEqual([], self.request('GET', path).json()[
            'maintenances'])
