"""Run the RLlib recipe on a local multi-process Ray cluster: a head node and one worker node (``ray start``
twice, one CPU each by default), then ``examples/integrations/rllib_ppo.py --address <head>`` with the
given arguments, then both nodes are stopped.

    unshare -n sh -c 'ip link set lo up && exec python tests/integrations/local_cluster.py -- --num-env-runners 2'

Ray turns ``--address 127.0.0.1:<port>`` into the machine's own network address before connecting (ray
issue 59110), so on a machine with a network this would talk to a non-loopback address. The script therefore
refuses to run unless loopback is the only interface: run it in a private network namespace (``unshare -n``,
as above, what the test does), where Ray falls back to 127.0.0.1 for everything.

Each node runs as ``ray start --block``, a process this script owns: stopping it (SIGTERM) stops the Ray
processes that node started, and nothing else (no ``ray stop``, which would stop every Ray on the machine).
Prints one JSON line: the recipe's figures plus the cluster's start-up time and ``shipped``, the files the job's
runtime_env unpacked on the nodes.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "examples" / "integrations" / "rllib_ppo.py"


def loopback_only() -> bool:
    return [name for _, name in socket.if_nameindex()] == ["lo"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_cli() -> str:
    cli = Path(sys.executable).with_name("ray")
    return str(cli) if cli.exists() else (shutil.which("ray") or "ray")


def wait_for_cpus(address: str, cpus: int, procs: list, env: dict, timeout: float = 240.0) -> None:
    probe = ("import ray,sys; ray.init(address=sys.argv[1], log_to_driver=False); "
             "print(int(ray.cluster_resources().get('CPU', 0))); ray.shutdown()")
    t0 = time.time()
    while time.time() - t0 < timeout:
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"ray start exited with {p.returncode}")
        out = subprocess.run([sys.executable, "-c", probe, address], capture_output=True, text=True, timeout=180,
                             env=env)
        lines = out.stdout.strip().splitlines()
        if out.returncode == 0 and lines and lines[-1].isdigit() and int(lines[-1]) >= cpus:
            return
        time.sleep(1)
    raise TimeoutError(f"the cluster at {address} did not reach {cpus} CPUs in {timeout:.0f}s")


def shipped_files(ray_tmp: str) -> list:
    """What the job's runtime_env put on the nodes: every file of the packages Ray unpacked under its
    ``runtime_resources`` (``<kind>/_ray_pkg_<hash>/...``), relative to the package folder, so ``kozel_env/...``
    for a py_module. (The workers' imports may have written ``__pycache__`` there since.)"""
    out = set()
    for pkg in Path(ray_tmp).glob("session_*/runtime_resources/*/_ray_pkg_*"):
        if pkg.is_dir():
            out |= {str(f.relative_to(pkg)) for f in pkg.rglob("*") if f.is_file()}
    return sorted(out)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus-per-node", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="worker nodes besides the head")
    ap.add_argument("--logs", help="folder for the nodes' and the recipe's output (default: a temporary one)")
    ap.add_argument("recipe_args", nargs=argparse.REMAINDER, help="after --: arguments of rllib_ppo.py")
    args = ap.parse_args(argv)
    if not loopback_only():
        raise SystemExit("local_cluster.py: run me where loopback is the only interface, e.g. "
                         "unshare -n sh -c 'ip link set lo up && exec python tests/integrations/local_cluster.py ...'")
    rargs = [a for a in args.recipe_args if a != "--"]
    logs = Path(args.logs) if args.logs else Path(tempfile.mkdtemp(prefix="kozel-ray-"))
    logs.mkdir(parents=True, exist_ok=True)
    port = free_port()
    address = f"127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}  # =0 forbids joining
    # Ray's token authentication, with a token of this run's own (not ~/.ray/auth_token) for every process
    env.update(PYTHONPATH=str(ROOT), RAY_DEDUP_LOGS="0", RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    common = ["--block", f"--num-cpus={args.cpus_per_node}", "--num-gpus=0", "--disable-usage-stats",
              "--node-ip-address=127.0.0.1"]
    procs, files = [], []

    def start(extra, name):
        f = open(logs / f"{name}.log", "w")
        files.append(f)
        procs.append(subprocess.Popen([ray_cli(), "start", *extra, *common], env=env, stdout=f,
                                      stderr=subprocess.STDOUT, start_new_session=True))

    ray_tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths must stay under 108 bytes
    t0 = time.perf_counter()
    out = {}
    try:
        start(["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={ray_tmp}"], "head")
        wait_for_cpus(address, args.cpus_per_node, procs, env)
        for w in range(args.workers):
            start([f"--address={address}"], f"worker{w}")
        wait_for_cpus(address, args.cpus_per_node * (1 + args.workers), procs, env)
        t_up = time.perf_counter() - t0
        result = logs / "run.json"
        t1 = time.perf_counter()
        with open(logs / "recipe.log", "w") as f:
            rc = subprocess.run([sys.executable, str(RECIPE), "--address", address, *rargs, "--json", str(result)],
                                env=env, stdout=f, stderr=subprocess.STDOUT).returncode
        if rc != 0:
            tail = (logs / "recipe.log").read_text()[-4000:]
            raise SystemExit(f"rllib_ppo.py exited with {rc}:\n{tail}")
        out = json.loads(result.read_text())
        out["cluster_start_s"] = t_up
        out["recipe_s"] = time.perf_counter() - t1
        out["nodes"] = 1 + args.workers
        out["stdout"] = [ln for ln in (logs / "recipe.log").read_text().splitlines()
                         if ln.startswith(("arena", "  it", f"{out['decisions']} learner"))]
        out["shipped"] = shipped_files(ray_tmp)
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)  # the process group this script started
                p.wait(timeout=30)
        for f in files:
            f.close()
        shutil.rmtree(ray_tmp, ignore_errors=True)
    out["total_s"] = time.perf_counter() - t0
    print(json.dumps(out, default=float))
    return out


if __name__ == "__main__":
    main()
