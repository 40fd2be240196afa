#!/usr/bin/env bash
# Batch throughput: the six shared animals × all their clips onto their
# autoweights rigs, run with 1 and with 2 local processes (one thread each),
# then the same with an MPI coordinator + 2 workers where OpenMPI is built in.
# Prints jobs/s, clips/s, the speed-up and each job's cost.
# usage: bench/bench_batch.sh [build-dir]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/skinfit
data=$(realpath "${SKF_DATA:-../shared/data}")
work=$(mktemp -d /tmp/skf-bench-batch-XXXXXX)
trap 'rm -rf "$work"' EXIT
animals=(Horse Deer Fox Wolf Cow Alpaca)
{
  echo '{"jobs": ['
  sep=""
  for a in "${animals[@]}"; do
    "$bin" autoweights "$data/quaternius/animals/$a.glb" -o "$work/${a}_aw.glb" >/dev/null
    printf '%s{"name": "%s", "source": "%s", "target": "%s", "clips": "all"}\n' "$sep" "$a" \
      "$data/quaternius/animals/$a.glb" "$work/${a}_aw.glb"
    sep=","
  done
  echo ']}'
} > "$work/jobs.json"
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
run() { # label outdir args...
  local label=$1 out=$2; shift 2
  local t0 t1; t0=$(now); "$@" > "$work/$label.log" 2>&1 || true; t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }' 
}
t1=$(run serial "$work/o1" "$bin" batch "$work/jobs.json" -o "$work/o1" --jobs 1 --threads 1)
t2=$(run two "$work/o2" "$bin" batch "$work/jobs.json" -o "$work/o2" --jobs 2 --threads 1)
printf 'machine: %s cores, load average %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %8s %8s %10s\n' "run" "seconds" "jobs/s" "speed-up"
printf '%-28s %8.2f %8.3f %10s\n' "1 process" "$t1" "$(calc "6 / $t1")" "1.00"
printf '%-28s %8.2f %8.3f %10.2f\n' "2 processes (--jobs 2)" "$t2" "$(calc "6 / $t2")" "$(calc "$t1 / $t2")"
if "$bin" batch --help | grep -q "MPI scale-out: built in" && command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated
  t3=$(run mpi "$work/o3" mpirun --oversubscribe -n 3 "$bin" batch "$work/jobs.json" -o "$work/o3" --threads 1)
  printf '%-28s %8.2f %8.3f %10.2f\n' "mpirun -n 3 (2 workers)" "$t3" "$(calc "6 / $t3")" "$(calc "$t1 / $t3")"
fi
echo
printf '%-8s %8s %8s %10s %10s\n' "job" "clips" "frames" "seconds" "ms/frame"
for a in "${animals[@]}"; do
  n=$(grep -c '"animation"' "$work/o1/$a.json")
  f=$(grep '"frames"' "$work/o1/$a.json" | grep -o '[0-9]*' | awk '{ s += $1 } END { print s }')
  s=$(grep -o '"seconds": [0-9.e-]*' "$work/o1/$a.timing.json" | head -1 | cut -d' ' -f2)
  printf '%-8s %8d %8d %10.2f %10.2f\n' "$a" "$n" "$f" "$s" "$(calc "1000 * $s / $f")"
done
