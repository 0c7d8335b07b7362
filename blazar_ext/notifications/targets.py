"""Which URLs webhooks may be sent to.

http(s) only, with a host; and unless [notifications]
allow_private_targets, only to global addresses: no loopback,
link-local, private, shared, multicast or reserved address, whether the
URL names it or a name resolves to it. Checked when a subscription is
written and again before each delivery (a name may resolve elsewhere
later).
"""

import ipaddress
import socket
import urllib.parse

from blazar_ext import exceptions

SCHEMES = ('http', 'https')


def _refuse(url: str, why: str):
    raise exceptions.Invalid(reason='url %s %s' % (exceptions.cut(url), why))


def _addresses(host: str, port: int) -> list:
    try:
        return [ipaddress.ip_address(info[4][0].split('%')[0])
                for info in socket.getaddrinfo(host, port,
                                               type=socket.SOCK_STREAM)]
    except (socket.gaierror, UnicodeError, ValueError):
        return []


def is_public(address) -> bool:
    """Whether an address is one anybody on the Internet may reach."""
    if getattr(address, 'ipv4_mapped', None) is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def check(url: str, allow_private: bool) -> urllib.parse.SplitResult:
    """The parsed URL, or Invalid (400) naming what is wrong with it."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as exc:
        _refuse(url, 'is not a valid URL (%s)' % exc)
    if parts.scheme not in SCHEMES:
        _refuse(url, 'must use http or https, not %r' % (parts.scheme or ''))
    if not parts.hostname:
        _refuse(url, 'has no host')
    if parts.username is not None or parts.password is not None:
        _refuse(url, 'must not carry credentials (sign with the secret)')
    if allow_private:
        return parts
    port = port or (443 if parts.scheme == 'https' else 80)
    addresses = _addresses(parts.hostname, port)
    if not addresses:
        _refuse(url, 'names a host that does not resolve: %s'
                % parts.hostname)
    private = sorted({str(a) for a in addresses if not is_public(a)})
    if private:
        _refuse(url, 'targets a loopback, link-local or private address '
                '(%s); [notifications] allow_private_targets is off'
                % ', '.join(private))
    return parts
