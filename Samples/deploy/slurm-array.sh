#!/usr/bin/env bash
# Reprocess one archive as a Slurm job array: task K of N runs shard K/N
# (mattebox-shard), a stable 1/N of the photos, all writing into one shared
# output folder. The array's indices are the shards, counted from 0.
#
#   sbatch --array=0-15 Samples/deploy/slurm-array.sh /archive /shared/out portrait-mattes
#
# A task that was killed (or failed) is run again on its own, naming the shard
# count, which the single task cannot know: it skips what the killed run had
# finished (--resume) and removes what it left half-written.
#
#   sbatch --array=5 Samples/deploy/slurm-array.sh /archive /shared/out portrait-mattes 16
#
# Then `mattebox report merge /shared/out/reports/*.json` sums up the run.
# OUTPUT must be on a filesystem every node mounts (see README, Many machines).
#SBATCH --job-name=mattebox
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=04:00:00
set -euo pipefail
usage="usage: sbatch --array=0-(N-1) slurm-array.sh ARCHIVE OUTPUT PIPELINE [N]"
archive=${1:?$usage}
output=${2:?$usage}
pipeline=${3:?$usage}
: "${SLURM_ARRAY_TASK_ID:?run it as a job array: $usage}"
if [ -n "${4:-}" ]; then
    shards=$4
elif [ "${SLURM_ARRAY_TASK_MIN:-}" = 0 ]; then
    shards=$((SLURM_ARRAY_TASK_MAX + 1))
else
    echo "slurm-array.sh: the array does not start at 0, so give the shard count as the 4th argument ($usage)" >&2
    exit 64
fi
exec mattebox-shard "$SLURM_ARRAY_TASK_ID" "$shards" "$archive" "$output" "$pipeline" "${SLURM_CPUS_PER_TASK:-2}"
