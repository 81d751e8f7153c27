"""Where the server can be reached from (issue 31, item 8; issue 33, item 3).

An invitation link or QR code must point where a phone can go: never at this machine's loopback
(127.0.0.1, localhost, ::1), never at the unspecified address a server binds to mean "every
address" (0.0.0.0, ::), and never at an address the server does not listen on. `gruft serve`
says which addresses the machine has when it listens on all of them, and tells its workers where
it listens (LISTENING) so the host page can warn of a GRUFT_PUBLIC_URL that names another one.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import os
import socket
import struct
from urllib.parse import urlsplit

# Set by `gruft serve` for its workers (not an operator's setting): "<host> <port>" it listens on.
LISTENING = "GRUFT_LISTENING"
SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Whether a bind address or host name is this machine's own loopback."""
    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        return True
    ip = _ip(host)
    return ip is not None and ip.is_loopback


def is_unspecified(host: str) -> bool:
    """Whether an address is the unspecified one (0.0.0.0, ::): "every address" to a server,
    nowhere to a phone."""
    ip = _ip(host)
    return ip is not None and ip.is_unspecified


def machine_addresses() -> list[str]:
    """This machine's own IPv4 addresses on its networks (no loopback, no link-local): the
    ones other devices can use when the server listens on every address."""
    found: list[str] = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        names = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in names:
            with contextlib.suppress(OSError):  # an interface without an IPv4 address
                packed = fcntl.ioctl(probe.fileno(), SIOCGIFADDR,
                                     struct.pack("256s", name.encode()[:15]))
                found.append(socket.inet_ntoa(packed[20:24]))
        if not found:  # not Linux: the address the way out leaves from (nothing is sent)
            with contextlib.suppress(OSError):
                probe.connect(("192.0.2.1", 9))
                found.append(probe.getsockname()[0])
    usable = [a for a in dict.fromkeys(found)
              if not (ipaddress.ip_address(a).is_loopback or ipaddress.ip_address(a).is_link_local
                      or ipaddress.ip_address(a).is_unspecified)]
    return usable


def listening() -> tuple[str, int] | None:
    """Where `gruft serve` listens (host, port), when this process is one of its workers."""
    value = os.environ.get(LISTENING, "")
    host, _, port = value.rpartition(" ")
    return (host, int(port)) if host and port.isdigit() else None


def unreachable(url: str, public: bool, where: tuple[str, int] | None = None) -> bool:
    """Whether a link to `url` cannot work from another device: it names the loopback or the
    unspecified address, or (a GRUFT_PUBLIC_URL, `public`) this server's port at an address it
    does not listen on (`where`, by default what `gruft serve` said)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if is_loopback(host) or is_unspecified(host):
        return True
    where = where if where is not None else listening()
    if not public or where is None:
        return False
    bound, port = where
    try:
        named_port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    if named_port != port or is_unspecified(bound):
        return False  # another port is another server's (a proxy's); every address is ours
    if is_loopback(bound):
        return True  # only this machine reaches the server at its own port
    return _ip(host) is not None and _ip(host) != _ip(bound)
