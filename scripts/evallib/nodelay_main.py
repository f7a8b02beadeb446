"""``opindex <command>`` with TCP_NODELAY on the sockets it serves, for latency benchmarks.

``opindex sandbox`` and ``opindex serve --transport http`` bind their listening sockets
with protocol 0, and asyncio only sets TCP_NODELAY on sockets whose protocol is
IPPROTO_TCP; without it a response written in two parts waits for the client's delayed
ACK (about 40 ms per request on Linux), which would dwarf the latency a benchmark
injects or measures. This wrapper rebinds such a socket with IPPROTO_TCP and otherwise
runs the command unchanged; when the command's own socket is already right it changes
nothing.

python scripts/evallib/nodelay_main.py sandbox --corpus FILE ...
python scripts/evallib/nodelay_main.py serve --transport http ...
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable

from opindex.cli import main
from opindex.mcp import serving
from opindex.sandbox import server

BindSocket = Callable[[str, int], socket.socket]


def with_tcp_protocol(bind: BindSocket) -> BindSocket:
    """*bind*, returning an equivalent IPPROTO_TCP socket when its own has protocol 0."""

    def bind_tcp(host: str, port: int) -> socket.socket:
        sock = bind(host, port)
        if sock.proto == socket.IPPROTO_TCP:
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


if __name__ == "__main__":
    server.bind_socket = with_tcp_protocol(server.bind_socket)
    serving.bind_socket = with_tcp_protocol(serving.bind_socket)
    sys.exit(main(sys.argv[1:]))
