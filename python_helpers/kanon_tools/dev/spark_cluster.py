"""A Spark standalone cluster on this machine, from the pyspark the project installs: a master, two
workers (separate JVMs, each starting its own executor JVM) and a Spark Connect server, the
driver, which dbt reaches as a client (profiles.yml's `spark_cluster` output: dbt-spark's session
method with SPARK_REMOTE set).

    python -m kanon_tools spark-cluster start [--dir target/spark_cluster]   (make spark-cluster)
    python -m kanon_tools spark-cluster stop  [--dir ...]                    (make spark-cluster-stop)
    python -m kanon_tools spark-cluster status

Unlike the in-process `spark` output, nothing is shared by accident: the dbt process holds no JVM,
the rows are evaluated in executors that share neither memory nor environment with dbt, and the
driver (the Connect server) holds the metastore. What a release needs there must be there:
- the warehouse directory and the metastore are the Connect server's (`--dir`/warehouse,
  `--dir`/metastore_db); on one machine every JVM sees the same files;
- the keys of pseudonyms and noise are read by the JVM that evaluates a row (kanon reads them
  with `reflect('java.lang.System', 'getenv', ...)`, never from SQL text): the master, the workers
  (whose executors inherit it) and the Connect server get this command's environment, so start
  the cluster where KANON_PSEUDONYM_KEY / KANON_NOISE_KEY are set. A release whose key is not in
  an executor's environment fails there with kanon's message naming the variable.

`start` returns when the Connect server answers a query on two executors, and writes the state
(ports, process ids, logs) to `--dir`/cluster.json; `stop` stops what it lists, the server
first. The processes are the pyspark package's own classes run by its bin/spark-class.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kanon_tools.spark_sql import JVM_OPTIONS, session_settings

DEFAULT_DIR = Path("target/spark_cluster")
WORKERS = 2


@dataclass
class Cluster:
    """What `start` started, as cluster.json records it."""

    directory: str
    master_url: str
    remote: str
    pids: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def load(directory: Path) -> Cluster | None:
        state = directory / "cluster.json"
        return Cluster(**json.loads(state.read_text())) if state.exists() else None

    def save(self) -> None:
        Path(self.directory, "cluster.json").write_text(json.dumps(asdict(self), indent=2) + "\n")


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode} before listening on {port}:\n"
                               + log.read_text(errors="replace")[-3000:])
        if listening(port):
            return
        time.sleep(0.2)
    raise RuntimeError(f"not listening on {port} after {timeout:.0f} s:\n" + log.read_text(errors="replace")[-3000:])


def listening(port: int) -> bool:
    """Whether a process on this machine accepts connections on `port`."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _jvm_env(extra: dict[str, str]) -> dict[str, str]:
    """The processes' environment: this one's (PATH, JAVA_HOME, the KANON_ keys: see the module's
    doc), without SPARK_REMOTE (it would make the server a client of itself)."""
    env = {name: value for name, value in os.environ.items() if name != "SPARK_REMOTE"}
    env.update(SPARK_HOME=str(spark_home()), SPARK_NO_DAEMONIZE="1", **extra)
    return env


def _spawn(name: str, argv: list[str], directory: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    log = directory / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                cwd=directory, start_new_session=True)


def server_settings(directory: Path, memory: str) -> dict[str, str]:
    """The Connect server's settings: profiles.yml's in-process spark output's (session_settings:
    the same metastore layout, JVM options and session settings) but for its master, and the
    executors', one core each on the workers."""
    settings = {name: value for name, value in session_settings(directory, memory=memory).items()
                if name != "spark.master"}
    settings.update({
        "spark.sql.catalogImplementation": "hive",
        "spark.executor.extraJavaOptions": JVM_OPTIONS,
        "spark.executor.memory": memory,
        "spark.executor.cores": "1",
        "spark.cores.max": str(WORKERS),
    })
    return settings


def start(directory: Path = DEFAULT_DIR, *, memory: str = "2g", timeout: float = 180,
          env: dict[str, str] | None = None, driver_env: dict[str, str] | None = None) -> Cluster:
    """Start the master, the workers and the Connect server; return once a query ran on the
    workers' executors. Refuses when cluster.json lists a cluster still running. env: variables
    for every process, besides this one's environment (keys, say); driver_env: for the Connect
    server (the driver) only, not the workers: how the tests make a setting only the driver sees."""
    directory = directory.resolve()
    directory.mkdir(parents=True, exist_ok=True)
    running = Cluster.load(directory)
    if running and any(alive(pid) for pid in running.pids.values()):
        raise RuntimeError(f"a cluster is running from {directory} ({running.remote}): stop it first")
    home = spark_home()
    master_port, connect_port = free_port(), free_port()
    cluster = Cluster(str(directory), f"spark://127.0.0.1:{master_port}", f"sc://127.0.0.1:{connect_port}")
    env = _jvm_env({**(env or {}), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(directory / "work"),
                    "SPARK_LOG_DIR": str(directory / "logs")})
    spark_class = str(home / "bin" / "spark-class")
    try:
        master = _spawn("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(master_port), "--webui-port", str(free_port())], directory, env)
        cluster.pids["master"] = master.pid
        cluster.save()
        _wait_for_port(master_port, master, directory / "logs" / "master.log", timeout)
        for n in range(1, WORKERS + 1):
            worker = _spawn(f"worker{n}", [spark_class, "org.apache.spark.deploy.worker.Worker", cluster.master_url,
                                           "--host", "127.0.0.1", "--cores", "1", "--memory", memory,
                                           "--webui-port", str(free_port()),
                                           "--work-dir", str(directory / "work" / f"worker{n}")], directory, env)
            cluster.pids[f"worker{n}"] = worker.pid
        settings = server_settings(directory, memory)
        settings["spark.connect.grpc.binding.port"] = str(connect_port)
        argv = [str(home / "bin" / "spark-submit"), "--name", "kanon Spark Connect server", "--master",
                cluster.master_url, "--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
        for name, value in settings.items():
            argv += ["--conf", f"{name}={value}"]
        argv.append("spark-internal")
        server = _spawn("connect", argv, directory, {**env, **(driver_env or {})})
        cluster.pids["connect"] = server.pid
        cluster.save()
        _wait_for_port(connect_port, server, directory / "logs" / "connect.log", timeout)
        executors = _executors(cluster.remote, timeout)
        if executors < WORKERS:
            raise RuntimeError(f"the Connect server has {executors} executors, not {WORKERS}: see {directory}/logs")
    except BaseException:
        stop(directory)
        raise
    return cluster


@contextlib.contextmanager
def running(directory: Path, *, memory: str = "2g", env: dict[str, str] | None = None,
            driver_env: dict[str, str] | None = None) -> Iterator[Cluster]:
    """A cluster started for the block, with SPARK_REMOTE set in this process's environment (so
    that dbt, in process or in a subprocess, and kanon_tools.spark_sql are its clients), stopped
    after it."""
    cluster = start(directory, memory=memory, env=env, driver_env=driver_env)
    saved = os.environ.get("SPARK_REMOTE")
    os.environ["SPARK_REMOTE"] = cluster.remote
    try:
        yield cluster
    finally:
        if saved is None:
            os.environ.pop("SPARK_REMOTE", None)
        else:
            os.environ["SPARK_REMOTE"] = saved
        close_clients()
        stop(directory)


def close_clients() -> None:
    """Stop this process's Spark Connect sessions: pyspark keeps its first one as the default, and
    getOrCreate() would hand it out again, still bound to a server that is gone."""
    connect = sys.modules.get("pyspark.sql.connect.session")
    if connect is None:
        return
    for client in (connect.SparkSession.getActiveSession(), connect.SparkSession._get_default_session()):
        if client is not None:
            client.stop()


def _executors(remote: str, timeout: float) -> int:
    """How many distinct executors ran a small job's tasks (waits for the workers to register)."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(remote).getOrCreate()
    deadline = time.monotonic() + timeout
    seen = 0
    try:
        while time.monotonic() < deadline:
            seen = max(seen, len(executor_jvms(spark)))
            if seen >= WORKERS:
                break
            time.sleep(1)
    finally:
        spark.stop()
    return seen


def executor_jvms(spark: Any) -> set[str]:
    """The JVMs (process ids) that evaluated the rows of a query in eight partitions."""
    rows = spark.sql("select distinct java_method('java.lang.ProcessHandle', 'current') "
                     "from range(0, 64, 1, 8)").collect()
    return {str(row[0]) for row in rows}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def stop(directory: Path = DEFAULT_DIR, *, timeout: float = 30) -> list[str]:
    """Stop what cluster.json lists (the server first, the master last): SIGTERM to each process
    group, SIGKILL after `timeout`. Returns the names stopped."""
    directory = directory.resolve()
    cluster = Cluster.load(directory)
    if cluster is None:
        return []
    order = sorted(cluster.pids, key=lambda name: {"connect": 0, "master": 2}.get(name, 1))
    stopped = []
    for name in order:
        pid = cluster.pids[name]
        if not alive(pid):
            continue
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + timeout
        while alive(pid) and time.monotonic() < deadline:
            _reap(pid)
            time.sleep(0.2)
        if alive(pid):
            os.killpg(pid, signal.SIGKILL)
        stopped.append(name)
    Path(directory, "cluster.json").unlink(missing_ok=True)
    return stopped


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # not our child: nothing to reap
        os.waitpid(pid, os.WNOHANG)

