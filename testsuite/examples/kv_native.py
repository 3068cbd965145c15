#!/usr/bin/env python3
"""Native tests of the kv example (examples/kv): real processes, real
loopback sockets (testsuite/examples/CMakeLists.txt runs each case as its
own CTest test).

  kv_native.py CASE --bin DIR      DIR holds kv_server, kv_server_buggy, kv_client

  cluster      3 servers (a primary, two backups), kv_client 200 ops: exit 0
               and exactly the line 'kv_client: 200 ops ok'.
  slow-backup  the correct primary with one fake backup that ACKs every REPL
               200 ms late and answers GETs from what it has ACKed: the
               primary waits for the acks, so every read is fresh (exit 0).
  stale        the same fake backup with kv_server_buggy: the primary answers
               OK before the ack, and the client must report the stale read
               (a STALE READ line for the fake replica, killed by SIGABRT).

Ports come from the OS (bind port 0), so tests running in parallel never
collide.  Every process started is killed at the end, pass or fail.
Exit 0 when the case holds; 1 with the reason.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

ACK_DELAY_S = 0.2


class Fail(Exception):
    pass


def free_ports(n):
    """n distinct ports the OS considers free now."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class FakeBackup:
    """A backup that syncs like the real one, then ACKs each REPL late and
    serves GETs from what it has ACKed: a slow but honest replica."""

    def __init__(self, port, primary_port):
        self.port, self.primary_port = port, primary_port
        self.store, self.applied, self.lock = {}, 0, threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", port))
        self.synced = threading.Event()
        threading.Thread(target=self.accept_loop, daemon=True).start()
        threading.Thread(target=self.sync, daemon=True).start()

    def sync(self):
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.primary_port)) as s:
                    s.sendall(b"SYNC 127.0.0.1:%d\n" % self.port)
                    f = s.makefile("r")
                    _, seq, n = f.readline().split()
                    with self.lock:
                        for _ in range(int(n)):
                            _, k, v = f.readline().split()
                            self.store[k] = v
                        self.applied = int(seq)
                    self.synced.set()
                    return
            except (OSError, ValueError):
                time.sleep(0.02)

    def accept_loop(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        send_lock = threading.Lock()

        def reply(line):
            with send_lock:
                try:
                    conn.sendall(line.encode() + b"\n")
                except OSError:
                    pass

        def late_ack(seq, k, v):
            time.sleep(ACK_DELAY_S)
            with self.lock:
                if seq == self.applied + 1:
                    self.store[k] = v
                    self.applied = seq
                applied = self.applied
            reply("ACK %d" % applied)

        try:
            for line in conn.makefile("r"):
                w = line.split()
                if not self.synced.is_set():
                    reply("ERR syncing")
                elif len(w) == 4 and w[0] == "REPL":
                    threading.Thread(target=late_ack, args=(int(w[1]), w[2], w[3]), daemon=True).start()
                elif len(w) == 2 and w[0] == "GET":
                    with self.lock:
                        v = self.store.get(w[1])
                    reply("VALUE " + v if v is not None else "NOTFOUND")
                else:
                    reply("ERR bad request")
        except (OSError, ValueError):
            pass  # the primary went away: the test is ending


def start(procs, argv):
    procs.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True))


def run_client(bindir, ops, replicas, timeout=120):
    p = subprocess.run([os.path.join(bindir, "kv_client"), str(ops), replicas], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def case_cluster(a, procs):
    ports = free_ports(3)
    replicas = ",".join("127.0.0.1:%d" % p for p in ports)
    for p in ports:
        start(procs, [os.path.join(a.bin, "kv_server"), "127.0.0.1", str(p), replicas])
    status, out, err = run_client(a.bin, 200, replicas)
    if status != 0 or out != "kv_client: 200 ops ok\n":
        raise Fail("client exited %d, stdout %r, stderr %r" % (status, out, err[-2000:]))
    for pr in procs:
        if pr.poll() is not None:
            raise Fail("server %s died with status %d" % (pr.args, pr.returncode))


def with_fake_backup(a, procs, server, ops):
    primary, fake = free_ports(2)
    replicas = "127.0.0.1:%d,127.0.0.1:%d" % (primary, fake)
    backup = FakeBackup(fake, primary)
    start(procs, [os.path.join(a.bin, server), "127.0.0.1", str(primary), replicas])
    if not backup.synced.wait(10):
        raise Fail("the fake backup could not sync with %s" % server)
    return run_client(a.bin, ops, replicas), "127.0.0.1:%d" % fake


def case_slow_backup(a, procs):
    (status, out, err), _ = with_fake_backup(a, procs, "kv_server", 8)
    if status != 0 or out != "kv_client: 8 ops ok\n":
        raise Fail("client exited %d, stdout %r, stderr %r" % (status, out, err[-2000:]))


def case_stale(a, procs):
    (status, out, err), fake = with_fake_backup(a, procs, "kv_server_buggy", 50)
    if status != -signal.SIGABRT:
        raise Fail("client exited %d (want SIGABRT), stdout %r, stderr %r" % (status, out, err[-2000:]))
    m = re.search(r"^kv_client: STALE READ key=k\d replica=(\S+) got=(\d+) acked=(\d+)$", err, re.M)
    if not m or m.group(1) != fake or int(m.group(2)) >= int(m.group(3)):
        raise Fail("no STALE READ line naming %s with got < acked in stderr %r" % (fake, err[-2000:]))
    if "ops ok" in out:
        raise Fail("client claimed success: %r" % out)


CASES = {"cluster": case_cluster, "slow-backup": case_slow_backup, "stale": case_stale}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    procs = []
    try:
        CASES[a.case](a, procs)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("kv_native %s: FAIL: %s" % (a.case, e), file=sys.stderr)
        return 1
    finally:
        for pr in procs:
            if pr.poll() is None:
                os.killpg(pr.pid, signal.SIGKILL)
            pr.wait()
    print("kv_native %s: ok" % a.case)
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # The fake backup's threads are blocked in socket calls: leave without
    # waiting for them (they hold nothing worth a clean shutdown).
    os._exit(status)
