"""`python -m kanon_tools spark-cluster start|stop|status`: a Spark standalone cluster on this
machine (kanon_tools.dev.spark_cluster; `make spark-cluster`, `make spark-cluster-stop`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kanon_tools.cli.bench import memory_size
from kanon_tools.dev import spark_cluster


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("spark-cluster", help="start or stop a Spark standalone cluster on this machine",
                                   description=spark_cluster.__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("start", "stop", "status"))
    parser.add_argument("--dir", type=Path, default=spark_cluster.DEFAULT_DIR,
                        help="the cluster's warehouse, metastore, logs and state "
                             f"(default {spark_cluster.DEFAULT_DIR})")
    parser.add_argument("--memory", type=memory_size, default="2g",
                        help="each worker's memory, and the driver's and each executor's (default 2g)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.action == "start":
        cluster = spark_cluster.start(args.dir, memory=args.memory)
        print(f"Spark cluster up: master {cluster.master_url}, {spark_cluster.WORKERS} workers, Spark Connect "
              f"server {cluster.remote}\nexport SPARK_REMOTE={cluster.remote}  # then: dbt ... --target spark_cluster")
    elif args.action == "stop":
        stopped = spark_cluster.stop(args.dir)
        print(f"stopped: {', '.join(stopped)}" if stopped else f"no cluster running from {args.dir}")
    else:
        cluster = spark_cluster.Cluster.load(args.dir.resolve())
        running = cluster and {name: spark_cluster.alive(pid) for name, pid in cluster.pids.items()}
        if not cluster or not running:
            print(f"no cluster started from {args.dir}")
            return 1
        states = ", ".join(f"{name} {'up' if up else 'down'}" for name, up in running.items())
        print(f"SPARK_REMOTE={cluster.remote}; {states}")
        return 0 if all(running.values()) else 1
    return 0
