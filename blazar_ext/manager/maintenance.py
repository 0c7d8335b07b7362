"""Maintenance windows in the manager (filled in below)."""

from blazar_ext.manager import periodic


class MaintenanceManager:

    def __init__(self, lease_manager, healer):
        self.leases = lease_manager
        self.healer = healer


class MaintenanceTask(periodic.PeriodicThread):
    thread_name = 'blazar-ext-maintenance'

    def __init__(self, maintenance_manager):
        self.maintenance = maintenance_manager
        super().__init__()

    def interval(self) -> float:
        return 3600.0

    def run_once(self, now=None):
        return []
