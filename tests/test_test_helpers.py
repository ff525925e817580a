"""The suite's own helpers (tests/conftest.py), where a mistake would make tests flaky."""

from tests.conftest import free_port


def test_free_port_never_gives_this_process_one_port_twice():
    """Two servers given ports one after the other must get two ports: the kernel's own
    choice repeats itself about once in 300 calls."""
    ports = [free_port() for _ in range(600)]
    assert len(set(ports)) == len(ports)
