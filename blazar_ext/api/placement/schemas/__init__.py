"""JSON schemas of placement request bodies, one module per resource."""
