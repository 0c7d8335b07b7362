"""Pure query code: request languages parsed into small ASTs and compiled
to SQLAlchemy conditions. No I/O here; the database layer runs the result.
"""
