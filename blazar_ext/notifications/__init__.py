"""Lifecycle notifications: the event catalog, webhook targets and their
signed CloudEvents, and the managers' delivery of the outbox.

Every event is written to the ``outbox`` table in the transaction of the
state change that causes it (blazar_ext.db.api.outbox.record); the
managers then claim and deliver it: once as an oslo.messaging
notification, and once to each webhook subscription that hears it.
"""
