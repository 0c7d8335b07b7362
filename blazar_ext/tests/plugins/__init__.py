"""Plugins that exist only for the tests, as the contributor guide's
how-tos describe them (doc/source/contributor/)."""
