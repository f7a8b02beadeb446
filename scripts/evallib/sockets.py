"""Listening sockets whose accepted connections get TCP_NODELAY from asyncio."""

from __future__ import annotations

import socket
from collections.abc import Callable

BindSocket = Callable[[str, int], socket.socket]


def with_tcp_protocol(bind: BindSocket) -> BindSocket:
    """*bind*, returning an equivalent IPPROTO_TCP socket when its own has protocol 0 and
    no TCP_NODELAY (which accepted connections would inherit)."""

    def bind_tcp(host: str, port: int) -> socket.socket:
        sock = bind(host, port)
        if sock.proto == socket.IPPROTO_TCP or sock.getsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY
        ):
            return sock
        family = sock.family
        sock.close()
        tcp = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        tcp.bind((host, port))
        tcp.listen(128)
        tcp.setblocking(False)
        return tcp

    return bind_tcp
