#!/usr/bin/env bash
# Reprocess one archive as a Slurm job array: task K of N runs `--shard K/N`,
# a stable 1/N of the photos (by a hash of each photo's path), all writing
# into one shared output folder. Resubmitting the array after a failure
# skips complete photos (--resume). Exit status 1 marks a task with failures;
# its report names them.
#
#   sbatch Samples/deploy/slurm-array.sh /archive /scratch/out Samples/pipelines/portrait-mattes.yaml
#
#SBATCH --job-name=mattebox
#SBATCH --array=0-15
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=04:00:00
set -euo pipefail
archive=${1:?usage: slurm-array.sh ARCHIVE OUTPUT PIPELINE}
output=${2:?usage: slurm-array.sh ARCHIVE OUTPUT PIPELINE}
pipeline=${3:?usage: slurm-array.sh ARCHIVE OUTPUT PIPELINE}
shards=$((SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1))
index=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))
mkdir -p "$output/reports"
exec mattebox process "$archive" -o "$output" --pipeline "$pipeline" --format heic \
    -j "${SLURM_CPUS_PER_TASK:-2}" --shard "$index/$shards" --resume \
    --report "$output/reports/shard-$index.json"
