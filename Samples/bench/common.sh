# What every bench script starts with (sourced): its arguments MATTEBOX_BINARY
# WORK_DIR TABLE_FILE as $mattebox, $work (made, absolute) and $table; the
# checkout ($repo), ../shared beside it ($shared), opencv-doc's photos
# ($opencv) and the process-tree meter ($measure: WALL_S CPU_S PEAK_MIB).
set -euo pipefail
mattebox=$1
work=$2
table=$3
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
shared="$repo/../shared"
opencv=/usr/share/doc/opencv-doc/examples/data
measure="python3 $repo/Samples/bench/measure.py"
mkdir -p "$work"
work=$(cd "$work" && pwd)
