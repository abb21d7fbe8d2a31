#!/usr/bin/env bash
# make test-cluster: the deployment samples run for real.
#  1. Kubernetes: Samples/deploy/kubernetes-indexed-job.yaml is validated against the Job
#     schema (kubernetes-validate from PyPI, pinned by hash, strict like `kubectl apply
#     --dry-run`), and its command must be the mattebox-shard line Slurm runs.
#  2. Slurm: a one-node cluster (Debian's slurmctld + slurmd, munge) in a private network and
#     PID namespace (only loopback; every daemon dies with the namespace, whatever happens)
#     runs Samples/deploy/slurm-array.sh as an array of 4 tasks, one task is killed mid-run
#     and resubmitted, and the shared output folder is checked (Tests/Cluster/slurm_array_test.py).
# Needs root and the packages `make deps` installs; elsewhere it is skipped with a message,
# unless MATTEBOX_REQUIRE_CLUSTER=1, where that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:?usage: Tests/Cluster/run.sh BIN_DIR (the folder holding mattebox and its plugins)}"
skip() {
    if [ "${MATTEBOX_REQUIRE_CLUSTER:-0}" = 1 ]; then echo "cluster test: $1" >&2; exit 1; fi
    echo "cluster test SKIPPED: $1"; exit 0
}

venv=.build/cluster-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || skip "python3 -m venv failed"
"$venv/bin/pip" install -q --disable-pip-version-check --require-hashes -r Tests/Cluster/requirements.txt \
    || skip "kubernetes-validate could not be installed from PyPI"
"$venv/bin/python" Tests/Cluster/kubernetes_manifest_test.py --validator "$venv/bin/kubernetes-validate"

[ "$(id -u)" = 0 ] || skip "the Slurm test needs root (munged, slurmd and the network namespace); run 'sudo make test-cluster'"
for tool in slurmctld slurmd sbatch squeue scancel munged unshare; do
    command -v "$tool" >/dev/null || skip "$tool is missing ('make deps' installs slurmctld, slurmd, slurm-client and munge)"
done
unshare --net --pid --fork --mount-proc true 2>/dev/null \
    || skip "this machine cannot make a private network and PID namespace (unshare), which keeps Slurm on loopback"
exec unshare --net --pid --fork --mount-proc --kill-child python3 Tests/Cluster/slurm_array_test.py --bin "$(cd "$bin" && pwd)"
