"""Connection limits for waitress, so one client cannot take the dashboard away from the
phones around the table.

waitress alone bounds the connections of *all* clients together (`connection_limit`), and
its `channel_timeout` only closes a connection that sends nothing at all: one client holding
a few hundred half-sent requests, trickling a byte every few seconds, stops it from
accepting anyone else. Two guards fix that:

- **per client** at most `per_client` open connections (an IPv6 client counts by its /64,
  since it can pick any address in it); the next one is answered 503 and closed at once;
- **per request** the request line, headers and body must arrive within `request_timeout`
  seconds of its first byte, however slowly it trickles; otherwise the connection is closed.

A running response (a live stream, the camera) is not a half-sent request and is not cut.
"""

from __future__ import annotations

import ipaddress
import logging
import time

from waitress.channel import HTTPChannel

log = logging.getLogger("uno_table.dashboard")

REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\n"
    b"Retry-After: 5\r\nContent-Length: 46\r\n\r\ntoo many connections from this client address\n"
)


def client_key(addr) -> str:
    """The address a limit counts by: an IPv4 address, an IPv6 /64, or the raw value."""
    host = addr[0] if isinstance(addr, (tuple, list)) and addr else str(addr)
    try:
        ip = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host)
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class GuardedChannel(HTTPChannel):
    """Remembers when the request it is still receiving began."""

    request_started: float | None = None
    _timed = None

    def received(self, data):
        result = super().received(data)
        pending = self.request
        if pending is None:
            self.request_started = self._timed = None
        elif pending is not self._timed:
            self._timed, self.request_started = pending, time.time()
        return result


class GuardMixin:
    """Mixed into waitress's listening server (see `guard`)."""

    per_client = 16
    request_timeout = 15.0
    refused = 0
    _last_warning = 0.0

    def open_from(self, key: str) -> int:
        for _ in range(3):
            try:
                return sum(1 for ch in list(self.active_channels.values()) if getattr(ch, "client_key", None) == key)
            except RuntimeError:  # the dict changed under us: count again
                continue
        return 0

    def handle_accept(self):
        try:
            got = self.accept()
            if got is None:
                return
            conn, addr = got
            self.set_socket_options(conn)
        except OSError:
            return
        addr = self.fix_addr(addr)
        key = client_key(addr)
        if self.open_from(key) >= self.per_client:
            self.refused += 1
            try:
                conn.setblocking(False)
                conn.send(REFUSED)
            except OSError:
                pass
            conn.close()
            now = time.monotonic()
            if now - self._last_warning > 10:
                self._last_warning = now
                log.warning("refused connections from %s: more than %d open (%d refused so far)",
                            key, self.per_client, self.refused)  # fmt: skip
            return
        channel = self.channel_class(self, conn, addr, self.adj, map=self._map)
        channel.client_key = key

    def maintenance(self, now):
        super().maintenance(now)
        cutoff = now - self.request_timeout
        try:
            channels = list(self.active_channels.values())
        except RuntimeError:
            return
        for ch in channels:
            started = getattr(ch, "request_started", None)
            if started is not None and started < cutoff and ch.request is not None and not ch.requests:
                ch.will_close = True  # closed by the loop at its next turn


def guard(server, *, per_client: int = 16, request_timeout: float = 15.0):
    """Put the guards on a server made by waitress's `create_server` (one socket or many)."""
    listeners = [server]
    if not hasattr(server, "active_channels"):  # a MultiSocketServer: guard each listener
        listeners = [s for s in server.map.values() if hasattr(s, "active_channels")]
    for srv in listeners:
        cls = srv.__class__
        if not isinstance(srv, GuardMixin):
            srv.__class__ = type(f"Guarded{cls.__name__}", (GuardMixin, cls), {})
        srv.channel_class = GuardedChannel
        srv.per_client = per_client
        srv.request_timeout = request_timeout
    return server
