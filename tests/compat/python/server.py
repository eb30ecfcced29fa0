"""A python3-pmix server (PMIxServer) on our libpmix: registers a one-process job, forks a C client of ours
(argv[1], e.g. examples/hello) with the environment setup_fork produced, and finalizes. Every step prints
its status; the compat test checks them. The binding may run the connected/finalized upcalls on
its own thread, in either order (seen in CI), so they are recorded and reported together."""
import os, subprocess, sys, threading
from pmix import *

seen = {}
both_seen = threading.Event()

def record(what, proc):
    seen[what] = proc["rank"]
    if len(seen) == 2:
        both_seen.set()
    return PMIX_SUCCESS

def connected(proc: dict):
    return record("connected", proc)

def finalized(proc: dict):
    return record("finalized", proc)

srv = PMIxServer()
rc = srv.init([], {'clientconnected': connected, 'clientfinalized': finalized})
print("init", rc, srv.get_version(), flush=True)
(rc, regex) = srv.generate_regex([os.uname().nodename])
(rc, ppn) = srv.generate_ppn(["0"])
kv = [{'key': PMIX_NODE_MAP, 'value': regex, 'val_type': PMIX_STRING},
      {'key': PMIX_PROC_MAP, 'value': ppn, 'val_type': PMIX_STRING},
      {'key': PMIX_JOB_SIZE, 'value': 1, 'val_type': PMIX_UINT32}]
print("register_nspace", srv.register_nspace("py.job", 1, kv), flush=True)
print("register_client", srv.register_client({'nspace': "py.job", 'rank': 0}, os.getuid(), os.getgid()), flush=True)
env = os.environ.copy()
print("setup_fork", srv.setup_fork({'nspace': "py.job", 'rank': 0}, env), flush=True)
p = subprocess.run([sys.argv[1]], env=env, timeout=30)
print("client exit", p.returncode, flush=True)
both_seen.wait(10)
print("upcalls", " ".join(f"{k} {seen[k]}" for k in ("connected", "finalized") if k in seen), flush=True)
print("finalize", srv.finalize(), flush=True)
