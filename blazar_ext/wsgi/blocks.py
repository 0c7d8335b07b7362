"""Large response bodies handed to cheroot in blocks.

Standard library only: tools/cheroot_serve.py loads this file by its
path to serve upstream Placement and Keystone the same way, in their own
virtualenvs, without blazar_ext's package or dependencies.
"""

# Bytes handed to cheroot per write. Its writer copies everything still
# unsent on each send to the socket, so a body of megabytes written whole
# is copied over and over (quadratic); in blocks, once.
WRITE_BLOCK = 65536


def in_blocks(app):
    """``app`` with each body chunk longer than WRITE_BLOCK passed on in
    slices of that size (bytes, as cheroot wants: one copy in all)."""
    def blocks(environ, start_response):
        body = app(environ, start_response)
        try:
            for chunk in body:
                if len(chunk) <= WRITE_BLOCK:
                    yield chunk
                    continue
                for start in range(0, len(chunk), WRITE_BLOCK):
                    yield chunk[start:start + WRITE_BLOCK]
        finally:
            close = getattr(body, 'close', None)
            if close is not None:
                close()
    return blocks
