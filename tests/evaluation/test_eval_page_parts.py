"""Benchmark page parts that need no plotting: markdown cells and tables, the socket wrapper."""

from __future__ import annotations

import socket

from evallib.markdown import cell, table
from evallib.sockets import with_tcp_protocol


def test_markdown_cells() -> None:
    assert cell(None) == "–" and cell(0.5) == "0.50" and cell("a|b") == "a\\|b"
    assert table(["x", "y"], [[1, 2]]).splitlines()[1] == "|:--|--:|"


def test_nodelay_wrapper_rebinds_a_protocol_zero_socket() -> None:
    def plain(host: str, port: int) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((host, port))
        sock.listen(1)
        return sock

    unwrapped = plain("127.0.0.1", 0)
    assert unwrapped.proto == 0
    unwrapped.close()
    sock = with_tcp_protocol(plain)("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
        assert sock.getsockname()[1] > 0
    finally:
        sock.close()
