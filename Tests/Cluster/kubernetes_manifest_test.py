#!/usr/bin/env python3
"""The Kubernetes sample, checked as `kubectl apply --dry-run` would and against the Slurm sample.

- Samples/deploy/kubernetes-indexed-job.yaml validates against the batch/v1 Job schema of a
  pinned Kubernetes release (kubernetes-validate, strict: unknown fields are errors), and the
  same file with one misspelt field does not (so the validator is really checking).
- Its container runs the command the Slurm sample runs: mattebox-shard with the pod's
  JOB_COMPLETION_INDEX and the Job's completions as the shard count. The command is executed
  (with `mattebox` on PATH replaced by a recorder of its arguments) so what it would run is
  read, not guessed.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "Samples" / "deploy" / "kubernetes-indexed-job.yaml"
SLURM = ROOT / "Samples" / "deploy" / "slurm-array.sh"
KUBERNETES_VERSION = "1.31"


def check(condition, message):
    if not condition:
        raise SystemExit(f"kubernetes manifest test FAILED: {message}")


def validate(validator, path):
    return subprocess.run([validator, "--strict", "-k", KUBERNETES_VERSION, str(path)], capture_output=True, text=True)


def recorded_command(shell_line, environment):
    """What `mattebox` would be run with: PATH holds the real mattebox-shard and a recorder."""
    with tempfile.TemporaryDirectory() as folder:
        recorder = Path(folder) / "mattebox"
        recorder.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n')
        recorder.chmod(0o755)
        env = dict(os.environ, PATH=f"{folder}:{ROOT / 'Samples' / 'deploy'}:/usr/bin:/bin", **environment)
        run = subprocess.run(["/bin/sh", "-c", shell_line], capture_output=True, text=True, env=env)
        check(run.returncode == 0, f"{shell_line!r} failed: {run.stderr}")
        return run.stdout.splitlines()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--validator", required=True)
    validator = parser.parse_args().validator

    result = validate(validator, MANIFEST)
    print(result.stdout.strip() or result.stderr.strip())
    check(result.returncode == 0, f"{MANIFEST} does not validate: {result.stdout}{result.stderr}")
    with tempfile.TemporaryDirectory() as folder:
        broken = Path(folder) / "misspelt.yaml"
        broken.write_text(MANIFEST.read_text().replace("restartPolicy:", "restartPolicyy:"))
        refused = validate(validator, broken)
        check(refused.returncode != 0 and "restartPolicyy" in refused.stdout + refused.stderr,
              f"a misspelt field was not refused: {refused.stdout}{refused.stderr}")

    job = yaml.safe_load(MANIFEST.read_text())
    spec = job["spec"]
    check(spec.get("completionMode") == "Indexed", "the Job must be Indexed (JOB_COMPLETION_INDEX)")
    container = spec["template"]["spec"]["containers"][0]
    line = " ".join(container["command"][2:] + container.get("args", [])) if container["command"][:2] == ["/bin/sh", "-c"] else None
    check(line is not None, "the container's command should be /bin/sh -c LINE")
    words = shlex.split(line)
    check(words[:3] == ["exec", "mattebox-shard", "$JOB_COMPLETION_INDEX"], f"the container does not run mattebox-shard: {line}")
    check(int(words[3]) == spec["completions"], f"shard count {words[3]} is not the Job's completions ({spec['completions']})")

    # Run it as pod 3 would, and as Slurm task 3 of 0-7 would: the same mattebox command line.
    pod = recorded_command(line, {"JOB_COMPLETION_INDEX": "3"})
    slurm = recorded_command(
        "exec bash " + shlex.quote(str(SLURM)) + " " + " ".join(shlex.quote(w) for w in words[4:7] + [words[3]]),
        {"SLURM_ARRAY_TASK_ID": "3", "SLURM_CPUS_PER_TASK": words[7]})
    print("pod 3 and Slurm task 3 both run: mattebox " + " ".join(pod))
    check(pod == slurm, f"Kubernetes and Slurm run different commands:\n  {pod}\n  {slurm}")
    check("--shard" in pod and pod[pod.index("--shard") + 1] == f"3/{spec['completions']}" and "--resume" in pod,
          f"pod 3 is not shard 3/{spec['completions']} with --resume: {pod}")
    print("kubernetes manifest test passed")


if __name__ == "__main__":
    sys.exit(main())
