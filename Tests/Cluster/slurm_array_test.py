#!/usr/bin/env python3
"""Samples/deploy/slurm-array.sh run for real on a one-node Slurm cluster, with a task killed.

Run by Tests/Cluster/run.sh as PID 1 of a private network and PID namespace: the daemons see
only loopback, and they all die with this process whatever happens. It:
  1. starts munged and a one-node cluster (2 CPUs; slurmctld + slurmd, config in a scratch folder);
  2. makes an archive of real photos in several formats (faces among them) and one broken JPEG;
  3. submits the real slurm-array.sh as an array of 4 tasks (mattebox-shard, --resume);
  4. kills one running task with SIGKILL once it has written a photo, waits for the array by
     polling squeue (no accounting daemon, so no sacct), and resubmits that index as a user would;
  5. checks the shared output folder: every photo written exactly once and readable by libheif
     and libvips, the broken file failed in exactly one report, originals unchanged, nothing
     partial left, and `mattebox report merge` totals matching the archive;
  6. for the closing note, times `mattebox process -j 2` on the same archive (a measurement,
     not an assertion), then stops the cluster.
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARDS = 4
LIMIT = 900  # seconds any one wait may take before it is a failure (never a speed claim)
START = time.monotonic()


def log(message):
    print(f"[{time.monotonic() - START:7.1f} s] {message}", flush=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def run(arguments, **options):
    return subprocess.run(arguments, capture_output=True, text=True, **options)


def wait_for(predicate, what, limit=LIMIT, every=0.1):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"{what}: not within {limit} s")


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class Cluster:
    """munged, slurmctld and slurmd with everything in `folder`."""

    def __init__(self, folder):
        self.folder = folder
        self.env = dict(os.environ, SLURM_CONF=str(folder / "slurm.conf"))

    def start(self):
        run(["ip", "link", "set", "lo", "up"], check=True)
        key = self.folder / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        munge = run(["munged", f"--key-file={key}", f"--socket={self.folder / 'munge.socket'}",
                     f"--pid-file={self.folder / 'munged.pid'}", f"--log-file={self.folder / 'munged.log'}",
                     f"--seed-file={self.folder / 'munged.seed'}", "--force"])
        check(munge.returncode == 0, f"munged did not start: {munge.stderr}")
        host = socket.gethostname().split(".")[0]
        for sub in ["state", "spool"]:
            (self.folder / sub).mkdir()
        f = self.folder
        # One node, 2 CPUs; no cgroups, no accounting. Slurm resolves addresses for IPv4 only unless
        # told otherwise, and a namespace whose only IPv4 address is loopback has "none" (AI_ADDRCONFIG).
        (f / "slurm.conf").write_text(f"""ClusterName=mattebox-test
SlurmctldHost={host}(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={f / 'munge.socket'}
CommunicationParameters=EnableIPv6
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation={f / 'state'}
SlurmdSpoolDir={f / 'spool'}
SlurmctldPidFile={f / 'slurmctld.pid'}
SlurmdPidFile={f / 'slurmd.pid'}
SlurmctldLogFile={f / 'slurmctld.log'}
SlurmdLogFile={f / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
KillWait=5
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=4000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        for daemon in [["slurmctld", "-i"], ["slurmd"]]:
            started = run(daemon, env=self.env)
            check(started.returncode == 0, f"{daemon[0]} did not start: {started.stderr}\n{self.logs()}")
        wait_for(lambda: "idle" in run(["sinfo", "-h", "-o", "%T"], env=self.env).stdout, "the node to be idle", limit=120)
        log(f"cluster up: slurmctld and slurmd on loopback, node {host} with 2 CPUs, config {f / 'slurm.conf'}")

    def logs(self):
        return "\n".join(f"--- {p.name}\n" + p.read_text(errors="replace")[-3000:] for p in sorted(self.folder.glob("*.log")))

    def stop(self):
        run(["scontrol", "shutdown"], env=self.env)
        for name in ["slurmd.pid", "slurmctld.pid", "munged.pid"]:
            pid_file = self.folder / name
            if pid_file.exists():
                try:
                    os.kill(int(pid_file.read_text().strip()), 9)
                except (ProcessLookupError, ValueError):
                    pass
        log("cluster stopped (and the PID namespace takes anything left with it)")

    def sbatch(self, arguments, env):
        submitted = run(["sbatch", "--parsable"] + arguments, env=env)
        check(submitted.returncode == 0, f"sbatch failed: {submitted.stderr}")
        return submitted.stdout.strip().split(";")[0]

    def tasks(self, job):
        """Array index -> state, for the job's tasks squeue still lists."""
        listed = run(["squeue", "-h", "-r", "-j", job, "-o", "%K %T"], env=self.env)
        states = {}
        for line in listed.stdout.split("\n"):
            if line.strip():
                index, state = line.split()
                states[int(index)] = state
        return states


def make_archive(folder):
    """Real photos in several formats, faces among them, and one truncated JPEG. The astronaut
    (NASA, public domain) comes enlarged to 3072x2304 in five formats that share one name, so
    the shards must also agree on `astronaut-2.heic` and the rest."""
    folder.mkdir()
    astronaut = ROOT / "Samples" / "cameras" / "astronaut.jpg"
    large = folder / "astronaut.jpg"
    made = run(["vips", "resize", str(astronaut), str(large) + "[Q=90]", "6"])
    check(made.returncode == 0, f"could not enlarge the astronaut: {made.stderr}")
    for extension in ["png", "webp", "tif", "heic"]:
        made = run(["vips", "copy", str(large), str(folder / f"astronaut.{extension}")])
        check(made.returncode == 0, f"could not make astronaut.{extension}: {made.stderr}")
    for photo in sorted((ROOT / "Samples" / "photos").glob("*.jpg")):
        shutil.copy(photo, folder / photo.name)
    shared = ROOT.parent / "shared" / "heic-samples"
    for sample in sorted(shared.glob("*.heic"))[:2] if shared.is_dir() else []:
        shutil.copy(sample, folder / sample.name)
    (folder / "broken.jpg").write_bytes(astronaut.read_bytes()[:700])
    return sorted(p for p in folder.iterdir() if p.is_file())


def shards_of(photos):
    """Which shard each photo falls in, as `--shard` chooses (used only to pick the task to kill):
    output stems made unique in path order, then FNV-1a of the stem modulo the shard count."""
    used, shard = set(), {}
    for photo in sorted(photos, key=lambda p: p.name):
        stem, counter = photo.stem, 2
        while stem in used:
            stem, counter = f"{photo.stem}-{counter}", counter + 1
        used.add(stem)
        value = 0xCBF29CE484222325
        for byte in stem.encode():
            value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        shard[photo.name] = value % SHARDS
    return shard


def main():
    # A stop from outside (timeout, Ctrl-C) still stops the cluster through `finally`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("slurm array test: stopped by SIGTERM"))
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the folder holding mattebox and its plugins")
    binary = Path(parser.parse_args().bin)
    mattebox = str(binary / "mattebox")
    scratch = Path(tempfile.mkdtemp(prefix="mattebox-cluster-"))
    cluster = Cluster(scratch / "slurm")
    (scratch / "slurm").mkdir()
    try:
        cluster.start()
        archive = scratch / "archive"
        photos = make_archive(archive)
        shard = shards_of(photos)
        victim = max(range(SHARDS), key=lambda k: sum(1 for v in shard.values() if v == k))
        log("shards: " + ", ".join(f"{k}: {sum(1 for v in shard.values() if v == k)} photos" for k in range(SHARDS))
            + f"; task {victim} will be killed")
        before = {p.name: sha256(p) for p in photos}
        log(f"archive: {len(photos)} files ({', '.join(sorted({p.suffix for p in photos}))}), broken.jpg cut to 700 bytes")
        output = scratch / "output"
        (scratch / "system").mkdir()
        env = dict(cluster.env, PATH=f"{binary}:{ROOT / 'Samples' / 'deploy'}:{os.environ['PATH']}",
                   XDG_CACHE_HOME=str(scratch / "cache"), MATTEBOX_SYSTEM_ROOT=str(scratch / "system"))
        logs = scratch / "logs"
        logs.mkdir()
        common = ["--cpus-per-task=1", "--mem=500M", f"--output={logs}/slurm-%A_%a.out", "--export=ALL"]
        script = [str(ROOT / "Samples" / "deploy" / "slurm-array.sh"), str(archive), str(output), "portrait-mattes"]

        submitted_at = time.monotonic()
        job = cluster.sbatch([f"--array=0-{SHARDS - 1}"] + common + script, env)
        log(f"submitted job array {job} (tasks 0-{SHARDS - 1}, 1 CPU each, 2 at a time on 2 CPUs)")

        # Kill the task with the most photos once it has written one: its shard is then partly done.
        manifest = output / f".mattebox-manifest-shard-{victim}-of-{SHARDS}.jsonl"
        wait_for(lambda: cluster.tasks(job).get(victim) == "RUNNING" and manifest.exists()
                 and '"stem"' in manifest.read_text(errors="replace"), f"task {victim} to finish its first photo", every=0.02)
        killed = run(["scancel", "--full", "--signal=KILL", f"{job}_{victim}"], env=env)
        check(killed.returncode == 0, f"scancel failed: {killed.stderr}")
        log(f"killed task {job}_{victim} with SIGKILL (scancel --full --signal=KILL) after its first photo")

        seen = {}

        def array_done(job_id):
            states = cluster.tasks(job_id)
            for index, state in states.items():
                if seen.get((job_id, index)) != state:
                    seen[(job_id, index)] = state
                    log(f"  task {job_id}_{index}: {state}")
            return not states
        wait_for(lambda: array_done(job), f"job array {job} to finish")
        first_pass = time.monotonic() - submitted_at
        log(f"array {job} finished in {first_pass:.1f} s; task {victim} was killed")
        report = output / "reports" / f"shard-{victim}-of-{SHARDS}.json"
        check(not report.exists(), f"task {victim} finished before it was killed (its report exists): the kill came too late")

        resubmitted = cluster.sbatch([f"--array={victim}"] + common + script + [str(SHARDS)], env)
        log(f"resubmitted shard {victim} as job {resubmitted} (sbatch --array={victim} ... {SHARDS})")
        wait_for(lambda: array_done(resubmitted), f"job {resubmitted} to finish")
        total = time.monotonic() - submitted_at
        log(f"all shards done {total:.1f} s after the first submission")

        # Every photo exactly once, readable by libheif and libvips.
        reports = sorted((output / "reports").glob("*.json"))
        check(len(reports) == SHARDS, f"{len(reports)} reports, not {SHARDS}: {[r.name for r in reports]}")
        listed = [p for r in reports for p in json.loads(r.read_text())["photos"]]
        written = {Path(p["input"]).name: Path(p["output"]).name for p in listed if p["status"] in ("ok", "skipped") and p.get("output")}
        good = sorted(p.name for p in photos if p.name != "broken.jpg")
        check(sorted(written) == good, f"not every photo is reported written:\n  {sorted(written)}\n  {good}")
        outputs = sorted(p for p in output.iterdir() if p.is_file() and not p.name.startswith("."))
        check(sorted(p.name for p in outputs) == sorted(written.values()) and len(set(written.values())) == len(good),
              f"the folder does not hold exactly one HEIC per photo:\n  {sorted(p.name for p in outputs)}\n  {sorted(written.values())}")
        for path in outputs:
            check(run(["heif-info", str(path)]).returncode == 0, f"libheif cannot read {path.name}")
            check(run(["vipsheader", str(path)]).returncode == 0, f"libvips cannot read {path.name}")
        log(f"{len(outputs)} outputs, one per photo, all read by libheif and libvips: "
            + ", ".join(f"{k} -> {v}" for k, v in sorted(written.items()) if k.startswith("astronaut")))
        manifests = sorted(p.name for p in output.glob(".mattebox-manifest*"))
        check(manifests == [f".mattebox-manifest-shard-{k}-of-{SHARDS}.jsonl" for k in range(SHARDS)],
              f"each shard must append to its own manifest file, and only to it: {manifests}")
        hidden = sorted(p.name for p in output.iterdir() if p.name.startswith(".") and not p.name.startswith(".mattebox-manifest"))
        check(not hidden, f"partial or temporary files left in the output folder: {hidden}")
        check({p.name: sha256(p) for p in photos} == before, "an original changed")

        # Reports: the broken file failed in exactly one; the merge adds up.
        failures = [(r.name, p) for r in reports for p in json.loads(r.read_text())["photos"] if p["status"] == "failed"]
        check(len(failures) == 1 and failures[0][1]["input"].endswith("broken.jpg"),
              f"the broken file must fail in exactly one report, and nothing else: {failures}")
        log(f"broken.jpg failed in {failures[0][0]}: {failures[0][1].get('error', '')[:120]}")
        merged_run = run([mattebox, "report", "merge", "--json"] + [str(r) for r in reports], env=env)
        check(merged_run.returncode == 1, f"report merge should exit 1 (one photo failed): {merged_run.returncode} {merged_run.stderr}")
        merged = json.loads(merged_run.stdout)
        check(merged["total"] == len(photos) and merged["succeeded"] + merged["skipped"] == len(photos) - 1
              and merged["failed"] == 1 and not merged["missingShards"] and not merged["listedTwice"],
              f"the merged report does not add up to {len(photos)} photos: {merged}")
        resumed = json.loads((output / "reports" / f"shard-{victim}-of-{SHARDS}.json").read_text())
        check(resumed["skipped"] >= 1, f"the resubmitted shard {victim} redid the photos its killed run had finished: {resumed['skipped']} skipped")
        log(f"merged: {merged['total']} photos, {merged['succeeded']} written, {merged['skipped']} done before the kill "
            f"(skipped on resubmission), {merged['failed']} failed; shards {', '.join(merged['shards'])}")
        log(run([mattebox, "report", "merge"] + [str(r) for r in reports], env=env).stdout.rstrip())

        # For comparison (printed, not asserted): one process with -j 2 on the same archive.
        single = scratch / "single"
        started = time.monotonic()
        alone = run([mattebox, "process", str(archive), "-o", str(single), "--pipeline", "portrait-mattes",
                     "--format", "heic", "-j", "2", "-q"], env=env)
        elapsed = time.monotonic() - started
        check(alone.returncode == 1, f"the single run should fail only broken.jpg: {alone.returncode} {alone.stderr[-400:]}")
        log(f"measured: Slurm array first pass {len(photos) / first_pass:.2f} photos/s (4 tasks x -j 1 on 2 CPUs, "
            f"{first_pass:.1f} s incl. the killed task); one process -j 2: {len(photos) / elapsed:.2f} photos/s ({elapsed:.1f} s)")
        print("slurm array test passed", flush=True)
    except AssertionError as failure:
        print(f"slurm array test FAILED: {failure}", flush=True)
        for path in sorted((scratch / "logs").glob("*.out")) if (scratch / "logs").exists() else []:
            print(f"--- {path.name}\n{path.read_text(errors='replace')[-2000:]}")
        print(cluster.logs())
        return 1
    finally:
        cluster.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
