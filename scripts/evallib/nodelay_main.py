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

import sys

from evallib.sockets import with_tcp_protocol
from opindex.cli import main

if __name__ == "__main__":
    # Only the command's own module: a measured ``serve`` must not carry the sandbox.
    if sys.argv[1:2] == ["sandbox"]:
        from opindex.sandbox import server

        server.bind_socket = with_tcp_protocol(server.bind_socket)  # type: ignore[assignment]
    else:
        from opindex.mcp import serving

        serving.bind_socket = with_tcp_protocol(serving.bind_socket)  # type: ignore[assignment]
    sys.exit(main(sys.argv[1:]))
