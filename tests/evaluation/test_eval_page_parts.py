"""Benchmark page parts that need no plotting: markdown cells, the socket wrapper, the yardstick."""

from __future__ import annotations

import socket

import pytest

from evallib.markdown import cell, table
from evallib.sockets import with_tcp_protocol
from evallib.yardstick import describe, yardstick


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


def test_the_yardstick_times_both_workloads_and_rejects_no_runs() -> None:
    figures = yardstick(runs=1)
    assert set(figures) == {"python_loop_ms", "numpy_sort_ms"}
    assert all(value > 0 for value in figures.values())
    assert describe(figures).startswith("Python loop ")
    with pytest.raises(ValueError, match="at least 1"):
        yardstick(runs=0)
