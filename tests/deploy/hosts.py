"""Hosts of their own on one machine, for tests/deploy/test_hosts.py: each host a Linux
network namespace with its own address on a private network, and its own process
namespace, so that killing a host ends every process on it at once.

One user namespace holds them all (`unshare --user --map-root-user`): made that way, the
same steps work as root and as any other user, with no change to the machine (no
/var/run/netns, no interface in the machine's own network). In it:

    the network's own namespace   bridge br0, 10.77.0.1: the database host, where
                                  PostgreSQL and Redis answer (relayed, below)
    a host's namespace            eth0, 10.77.0.N, joined to br0 by a veth pair

PostgreSQL and Redis are the test run's own, in the machine's network: a relay (relay.py)
in the database host listens on its address and passes each connection on through a Unix
socket to a relay outside, which connects to the real port. The test reaches a web host
the same way the other way round: a port on 127.0.0.1, relayed to the host's address
from the database host (where a load balancer would stand).

Nothing outlives the test: each namespace's first process (`cat`) reads a pipe from the
test, so that when the test ends, however it ends, the pipe closes, that process ends,
and the kernel kills every process of its namespace; the interfaces go with their
namespaces, and the relays end when their standard input closes.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from tests.conftest import ROOT, free_port

NETWORK = "10.77.0"  # private to the test's namespaces: it clashes with nothing
DATABASE_HOST = f"{NETWORK}.1"
RELAY = Path(__file__).with_name("relay.py")
# (a user's PATH may lack the sbin folders, where Debian puts `ip`)
SEARCH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
TOOLS = {"unshare": "util-linux", "nsenter": "util-linux", "ip": "iproute2",
         "nginx": "nginx-light"}


def tool(name: str) -> str:
    return shutil.which(name, path=SEARCH) or name


def available() -> str:
    """'' when this machine lets this user make the hosts, else what is missing."""
    for name, package in TOOLS.items():
        if shutil.which(name, path=SEARCH) is None:
            return f"{name} is not installed (Debian's {package})"
    try:
        probe = subprocess.run([tool("unshare"), "--user", "--map-root-user", "--net",
                                "--pid", "--fork", "--", tool("ip"), "link", "add", "br0",
                                "type", "bridge"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unshare could not start: {error}"
    if probe.returncode != 0:
        return ("this user cannot make a user and network namespace with a bridge in it "
                "(unprivileged user namespaces may be off: sysctl "
                "kernel.unprivileged_userns_clone, user.max_user_namespaces): "
                + probe.stderr.decode(errors="replace").strip())
    return ""


SOCKETS = "spectator-hosts-"  # the relays' folders, in the temporary folder: -PID-...


def sockets_left() -> None:
    """Remove the relays' folders of test processes that are gone (killed: a test that
    ends removes its own)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SOCKETS}*-*"):
        pid = folder.name.removeprefix(SOCKETS).partition("-")[0]
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (ValueError, PermissionError):
            continue  # (not one of these, or another user's process: running)


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as listed:
        return [int(child) for child in listed.read().split()]


class Host:
    """A namespace of the network: `address`, and `run` for its processes."""

    def __init__(self, network: Network, name: str, address: str) -> None:
        self.network, self.name, self.address = network, name, address
        # `unshare` (in the network's namespaces) makes the host's and waits for its
        # `cat`: that `unshare` is in the host's network namespace, its children in the
        # host's process namespace.
        self.holder = network._spawn(
            network._enter(network.pid, pids=True)
            + [tool("unshare"), "--net", "--pid", "--fork", "--kill-child", "--",
               "sh", "-c", "echo ready; exec cat"], "holder-" + name, ready=True)
        self.pid = _children(self.holder.pid)[0]

    def run(self, args: list[str], log: str, env: dict | None = None,
            cwd: Path | None = None) -> subprocess.Popen:
        """A process on this host (its network, its process namespace)."""
        return self.network._spawn(self.network._enter(self.pid, pids=True) + args,
                                   log, env=env, cwd=cwd)

    def kill(self) -> None:
        """The host dies: every process on it is killed at once, its interface goes."""
        self.holder.stdin.close()
        self.holder.wait(timeout=10)

    @property
    def alive(self) -> bool:
        return self.holder.poll() is None


class Network:
    """The private network and its hosts; `close()` ends it all."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.processes: list[subprocess.Popen] = []
        self.hosts: list[Host] = []
        # Unix sockets' paths are short (107 bytes): not under pytest's tmp_path
        sockets_left()
        self.sockets = Path(tempfile.mkdtemp(prefix=f"{SOCKETS}{os.getpid()}-"))
        try:
            self.holder = self._spawn(
                [tool("unshare"), "--user", "--map-root-user", "--net", "--pid", "--fork",
                 "--kill-child", "--", "sh", "-c", "echo ready; exec cat"], "holder-network",
                ready=True)
            self.pid = self.holder.pid
            self._admin(self.pid, f"ip link set lo up; ip link add br0 type bridge; "
                                  f"ip addr add {DATABASE_HOST}/24 dev br0; ip link set br0 up")
        except BaseException:
            self.close()
            raise

    def _enter(self, pid: int, pids: bool = False) -> list[str]:
        """nsenter's arguments for the user and network namespaces of `pid` (and, with
        `pids`, the process namespace of its children). --preserve-credentials: this
        user is root in the user namespace already (a user other than root may not
        call setgroups there, which nsenter would otherwise do)."""
        command = [tool("nsenter"), "--target", str(pid), "--user", "--net",
                   "--preserve-credentials"]
        if pids:
            command.append(f"--pid=/proc/{pid}/ns/pid_for_children")
        return command

    def _spawn(self, args: list[str], log: str, env: dict | None = None,
               cwd: Path | None = None, ready: bool = False) -> subprocess.Popen:
        """A process of the test's, its standard input a pipe from the test (a holder
        or a relay ends when it closes), its output in a log of its own. With `ready`,
        returned once it has printed "ready" (its namespaces made, or it listens)."""
        with open(self.logs / f"{log}.log", "a") as output:
            process = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE if ready else output,
                stderr=output, env=env, cwd=cwd, text=True)
        self.processes.append(process)
        if ready and process.stdout.readline().strip() != "ready":
            process.wait(timeout=10)
            raise RuntimeError(f"{' '.join(args)} failed: "
                               + (self.logs / f"{log}.log").read_text())
        return process

    def _admin(self, pid: int, script: str) -> None:
        """Shell commands as root of the user namespace, in `pid`'s network."""
        env = dict(os.environ, PATH=SEARCH)
        done = subprocess.run(self._enter(pid) + ["sh", "-ec", script], env=env,
                              capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise RuntimeError(f"{script!r} failed in the namespaces of {pid}: {done.stderr}")

    def run(self, args: list[str], log: str, env: dict | None = None,
            cwd: Path | None = None) -> subprocess.Popen:
        """A process on the database host (the network's own namespaces)."""
        return self._spawn(self._enter(self.pid, pids=True) + args, log, env=env, cwd=cwd)

    def host(self, name: str) -> Host:
        """A new host on the network, with the next address."""
        address = f"{NETWORK}.{11 + len(self.hosts)}"
        made = Host(self, name, address)
        self.hosts.append(made)
        link = f"v-{name}"[:15]
        # (`ip` finds the host's namespace by a process number of the machine's: it runs
        # in the network's network namespace, not in its process namespace)
        self._admin(self.pid, f"ip link add {link} type veth peer name eth0 netns {made.pid}; "
                              f"ip link set {link} master br0 up")
        self._admin(made.pid, f"ip link set lo up; ip addr add {address}/24 dev eth0; "
                              "ip link set eth0 up")
        return made

    def _relay(self, listen: str, target: str, log: str, inside: bool) -> None:
        args = [sys.executable, "-I", str(RELAY), listen, target]
        self._spawn((self._enter(self.pid, pids=True) if inside else []) + args, log,
                    ready=True)

    def serve_inside(self, port: int, outside_port: int) -> str:
        """The machine's 127.0.0.1:`outside_port` answers on the database host's
        address, port `port`: that address and port."""
        socket = self.sockets / f"in-{port}"
        self._relay(f"unix:{socket}", f"tcp:127.0.0.1:{outside_port}", f"relay-out-{port}",
                    inside=False)
        self._relay(f"tcp:{DATABASE_HOST}:{port}", f"unix:{socket}", f"relay-in-{port}",
                    inside=True)
        return f"{DATABASE_HOST}:{port}"

    def reach(self, address: str, port: int) -> int:
        """A port of 127.0.0.1 that leads to `address`:`port` in the network, from the
        database host (as a load balancer there would connect)."""
        socket = self.sockets / f"to-{address}-{port}"
        self._relay(f"unix:{socket}", f"tcp:{address}:{port}", f"relay-to-{address}",
                    inside=True)
        local = free_port()
        self._relay(f"tcp:127.0.0.1:{local}", f"unix:{socket}", f"relay-from-{address}",
                    inside=False)
        return local

    def close(self) -> None:
        for process in reversed(self.processes):  # the hosts, then the network, the relays
            with contextlib.suppress(OSError, ValueError):
                process.stdin.close()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout:
                process.stdout.close()
        shutil.rmtree(self.sockets, ignore_errors=True)


def serving(port: int) -> bool:
    """Whether a server answers HTTP at 127.0.0.1:`port` (any status)."""
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).close()
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
    return True


def balancer_conf(listen: str, servers: list[str], folder: Path) -> str:
    """deploy/nginx.conf as docs/deployment.md has the balancer of several hosts run it:
    deploy/nginx-upstream.conf's upstream block instead of its own (its servers' lines
    for `servers`, host:port each), its proxy_* lines in each location that passes to
    the upstream; listening on `listen`, its files in `folder`."""
    sample = (ROOT / "deploy" / "nginx-upstream.conf").read_text()
    upstream = re.search(r"^ *upstream spectator \{.*?^ *\}\n", sample, re.S | re.M)[0]
    lines = []
    for line in upstream.splitlines(keepends=True):
        sample_server = re.match(r"( *)server \S+ (.*)$", line)
        if sample_server and not any(" server " in kept for kept in lines):
            lines += [f"{sample_server[1]}server {server} {sample_server[2]}\n"
                      for server in servers]
        if not sample_server:
            lines.append(line)
    upstream = "".join(lines)
    added = sample.split("# in each `location`")[1]
    proxies = "".join(f"            {directive.strip()}\n" for directive in added.splitlines()
                      if directive.strip().startswith("proxy_"))
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = re.sub(r"^ *upstream spectator \{.*?^ *\}\n", lambda _: upstream, conf,
                  flags=re.S | re.M)
    conf = conf.replace("proxy_pass http://spectator;\n",
                        "proxy_pass http://spectator;\n" + proxies)
    (folder / "temp").mkdir(exist_ok=True)
    for pattern, value in (
            (r"^pid .*$", f"pid {folder}/nginx.pid;"),
            (r"^error_log .*$", f"error_log {folder}/error.log;"),
            (r"^ *access_log .*$", f"    access_log {folder}/access.log;"),
            (r"^ *listen 80;$", f"        listen {listen};"),
            # (root of the user namespace: its workers may not become another user; their
            # initgroups fails, which nginx logs and goes on)
            (r"^worker_processes .*$", "user root root;\nworker_processes 1;"),
            (r"^http \{$", "http {\n" + "".join(
                f"    {kind}_temp_path {folder}/temp/{kind};\n"
                for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")))):
        conf, count = re.subn(pattern, lambda _, value=value: value, conf, flags=re.M)
        assert count == 1, f"{pattern} is not once in deploy/nginx.conf"
    return conf
