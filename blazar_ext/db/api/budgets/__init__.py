"""Budgets, their costs and fair-use accounting: the queries."""
