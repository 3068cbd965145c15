#!/usr/bin/env python3
"""Native smoke test of the WAL example (examples/wal): real processes, real
loopback sockets, real files, in a fresh temporary directory removed at the
end.

  wal_native.py --bin DIR      DIR holds wal_server and wal_client

1. wal_server on a free port with --dir DATA --compact-every 16, and
   wal_client 200 ops: exit 0 and exactly 'wal_client: 200 ops ok'; a
   compaction happened (DATA/snapshot exists, DATA/wal.log holds fewer
   than 200 records' bytes).
2. Every key is read back (GET over a socket from here), the server is
   killed with SIGKILL, and a torn record is appended to DATA/wal.log (a
   header promising more bytes than follow, as a crash mid-write leaves).
3. A new wal_server on the same DATA recovers: it reports the torn bytes it
   cut, the log is back to its good length, and every key reads back as
   before the crash.
4. A second kill and restart with no damage: the same state, nothing cut.

Exit 0 when all of it holds; 1 with the reason.  Every process started is
killed at the end, pass or fail.
"""
import argparse
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time


class Fail(Exception):
    pass


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self, binary, port, data, log_path):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.p = subprocess.Popen([binary, str(port), "--dir", data, "--compact-every", "16"],
                                  stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                if self.p.poll() is not None:
                    raise Fail("wal_server exited with %s: %s" % (self.p.returncode, self.output()))
                time.sleep(0.02)
        raise Fail("wal_server did not listen on %d within 10 s" % port)

    def output(self):
        self.log.flush()
        return open(self.log_path).read()

    def kill(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGKILL)
        self.p.wait()
        self.log.close()


def read_all(port, keys=8):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        f = s.makefile("rw")
        out = {}
        for k in range(keys):
            f.write("GET k%d\n" % k)
            f.flush()
            out["k%d" % k] = f.readline().strip()
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    server_bin = os.path.join(a.bin, "wal_server")
    client_bin = os.path.join(a.bin, "wal_client")
    tmp = tempfile.mkdtemp(prefix="wal-native-")
    data = os.path.join(tmp, "data")
    servers = []
    try:
        port = free_port()
        servers.append(Server(server_bin, port, data, os.path.join(tmp, "server1.log")))
        c = subprocess.run([client_bin, "200", "127.0.0.1:%d" % port], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        if c.returncode != 0 or c.stdout.decode() != "wal_client: 200 ops ok\n":
            raise Fail("wal_client: status %d stdout %r stderr %r" % (c.returncode, c.stdout, c.stderr))
        log = os.path.join(data, "wal.log")
        if not os.path.exists(os.path.join(data, "snapshot")):
            raise Fail("no snapshot after 200 writes with --compact-every 16")
        good = os.path.getsize(log)
        if good >= 200 * 20:
            raise Fail("wal.log is %d bytes after 200 writes: it was never emptied by a compaction" % good)
        before = read_all(port)
        if any(not v.startswith("VALUE ") for v in before.values()):
            raise Fail("a key is missing before the crash: %r" % before)

        servers[-1].kill()
        with open(log, "ab") as f:
            f.write(struct.pack("<II", 40, 0) + b"torn")
        servers.append(Server(server_bin, port, data, os.path.join(tmp, "server2.log")))
        m = re.search(r"(\d+) torn bytes cut", servers[-1].output())
        if not m or int(m.group(1)) != 12:
            raise Fail("the restarted server did not report the 12 torn bytes: %r" % servers[-1].output())
        if os.path.getsize(log) != good:
            raise Fail("wal.log is %d bytes after recovery, want its good length %d" % (os.path.getsize(log), good))
        after = read_all(port)
        if after != before:
            raise Fail("state changed across the crash:\n before %r\n after  %r" % (before, after))

        servers[-1].kill()
        servers.append(Server(server_bin, port, data, os.path.join(tmp, "server3.log")))
        if " 0 torn bytes cut" not in servers[-1].output():
            raise Fail("a clean restart cut bytes: %r" % servers[-1].output())
        if read_all(port) != before:
            raise Fail("state changed across a clean restart")
        print("wal native: 200 writes, compaction, torn tail cut (12 bytes), state survives 2 restarts")
        return 0
    except (Fail, subprocess.TimeoutExpired, OSError) as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        for s in servers:
            s.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
