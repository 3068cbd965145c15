"""A TMPDIR of the test driver's own, removed when it exits.

A failing world keeps its log directory under TMPDIR (the launcher's
contract), and a test that makes worlds fail on purpose must not leave them
piling up in /tmp: each driver invocation gets a scratch TMPDIR that its
children inherit, removed at exit (SIMTEST_KEEP=1 keeps it, and says where).
"""
import atexit
import os
import shutil
import sys
import tempfile


def use_private_tmpdir(prefix):
    scratch = tempfile.mkdtemp(prefix=prefix)
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch
    if os.environ.get("SIMTEST_KEEP") == "1":
        atexit.register(lambda: print("%s: kept %s" % (prefix.rstrip("-"), scratch), file=sys.stderr))
    else:
        atexit.register(shutil.rmtree, scratch, True)
    return scratch
