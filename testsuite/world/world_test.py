#!/usr/bin/env python3
"""Worlds of several nodes: what simworld, simrun and simreplay promise
beyond what simtest.py checks for one program.

  world_test.py bad-input  BIN_DIR DIR   bad scenarios and plain nodes are refused
                                         before anything starts, naming the problem
  world_test.py leftovers  BIN_DIR DIR   no node process and no log directory is
                                         left behind, whatever the run's end
  world_test.py tools      BIN_DIR DIR   simrun sweeps a scenario, finds the failing
                                         one, and simreplay replays a world's line
  world_test.py handover   BIN_DIR DIR   a node hand-over costs one context switch
                                         when the thread guessed to run first does
  world_test.py faults     BIN_DIR DIR   level 2's partitions and pauses, reported
  world_test.py faults-all BIN_DIR DIR   every fault kind at once: seeds fail only as
                                         the program, never as detsim or the world
  world_test.py restart    BIN_DIR DIR   crashes (dead process, dead host) and
                                         restarts, as a client sees them
  world_test.py lossy-choices BIN_DIR DIR  in choice mode the input decides which
                                         datagram is lost
  world_test.py lossy      BIN_DIR DIR   level 2's udp (loss, duplication,
                                         reordering) and short (reads, writes)
  world_test.py trace      BIN_DIR DIR   a world's trace: the nodes' parts merged,
                                         whole, and simreplay replays from it
  world_test.py shrink     BIN_DIR DIR   simreplay --shrink of a world: the
                                         fewest faults that still fail
  world_test.py signal     BIN_DIR DIR   kill() of another node by its pid
  world_test.py canary     BIN_DIR DIR   a world that leaks real time diverges,
                                         located to the event and its node
  world_test.py abort      BIN_DIR DIR   connections aborted while a partition
                                         holds their last write: it is lost
  world_test.py sigterm    BIN_DIR DIR   SIGTERM stops: graceful, default action,
                                         ignored (killed after the grace period)
  world_test.py skew       BIN_DIR DIR   level 2's clock skew and drift, as the
                                         nodes' own clocks show them
  world_test.py step       BIN_DIR DIR   level 2's clock steps: waits and timers for
                                         a realtime time follow them
  world_test.py clog       BIN_DIR DIR   level 2's clogs: every byte and datagram
                                         arrives, in order, some late
  world_test.py wake       BIN_DIR DIR   every arrival wakes the idle node it is
                                         sent to, through partitions, clogs, pauses
  world_test.py coverage   BIN_DIR DIR   coverage points of every node counted in
                                         the world's WORKLOAD COVERAGE
  world_test.py machine    BIN_DIR DIR   each node is a machine of its own: its
                                         identity, random files and CPUs
  world_test.py node-replay BIN_DIR DIR  a node's first line says its replay needs
                                         the world, and that command replays it
Exit status 0 when every assertion holds, 1 (with the reason) otherwise.
The modes live in world_basics.py, world_lifecycle.py, world_clocks.py,
world_network.py and world_tools.py; world_common.py has what they share.
"""
import os
import sys

from world_basics import bad_input, handover, leftovers, node_replay, tools
from world_clocks import skew, step
from world_lifecycle import faults, faults_all, restart, sigterm
from world_machine import machine
from world_network import abort, clog, lossy, lossy_choices, wake
from world_tools import canary, coverage, shrink, signal_between_nodes, trace

MODES = {"bad-input": bad_input, "leftovers": leftovers, "tools": tools, "handover": handover, "faults": faults,
         "faults-all": faults_all, "restart": restart, "sigterm": sigterm, "skew": skew, "step": step, "clog": clog,
         "abort": abort, "lossy": lossy, "lossy-choices": lossy_choices, "trace": trace, "shrink": shrink, "wake": wake, "canary": canary,
         "signal": signal_between_nodes, "coverage": coverage, "machine": machine,
         "node-replay": node_replay}

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from scratch_tmpdir import use_private_tmpdir
    use_private_tmpdir("worldtest-")
    mode, bins, d = sys.argv[1], sys.argv[2], sys.argv[3]
    MODES[mode](bins, d)
