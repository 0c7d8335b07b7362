"""Database access: every SQL statement of blazar_ext lives in this package,
one module per resource. Functions take a RequestContext and return plain
dicts, never ORM objects, so callers cannot touch a session."""
