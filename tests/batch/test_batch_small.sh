#!/usr/bin/env bash
# Batch runner on small procedural jobs: resume after SIGKILL (byte-identical,
# nothing finished redone), shards partition the jobs, a corrupt input fails
# only its own job, and (where OpenMPI is installed) mpirun -n 3 matches the
# serial run byte for byte. Prints "N passed, N failed".
set -u
bin=${SKF_BIN:?}
work=$(mktemp -d /tmp/skf-batch-XXXXXX)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
check() { if eval "$1"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $2" >&2; fi; }

cd "$work"
"$bin" demo-asset -o creature.glb --vertices 600 >/dev/null || { echo "demo-asset failed"; exit 1; }
"$bin" autoweights creature.glb -o aw2.glb --max-influences 4 --falloff 2 >/dev/null || exit 1
"$bin" autoweights creature.glb -o aw1.glb --max-influences 8 --falloff 1 >/dev/null || exit 1
printf 'glTF\002\000\000\000garbage' > corrupt.glb
cat > jobs.json <<'J'
{
  "defaults": {"source": "creature.glb", "clips": ["Walk"], "fps": 6},
  "jobs": [
    {"name": "aw2-free", "target": "aw2.glb", "clips": "all"},
    {"name": "aw1-free", "target": "aw1.glb"},
    {"name": "aw2-walk-both", "target": "aw2.glb", "clips": ["Walk"], "mode": "both"},
    {"name": "self", "target": "creature.glb", "clips": ["Trot"]},
    {"name": "corrupt", "target": "corrupt.glb"},
    {"name": "aw1-trot-rot", "target": "aw1.glb", "clips": ["Trot"], "mode": "rotation-only", "fps": 90}
  ]
}
J
ok_jobs="aw2-free aw1-free aw2-walk-both self aw1-trot-rot"

# 1. Uninterrupted serial reference run: exit 1 because one job fails.
"$bin" batch jobs.json -o ref --threads 1 > ref.log 2> ref.err
check '[ $? -eq 1 ]' "serial run exits 1 when one job fails"
check 'grep -q "corrupt" ref.err' "the failing job names itself on stderr"
for j in $ok_jobs; do check "[ -s ref/$j.glb ] && [ -s ref/$j.json ]" "job $j wrote its outputs"; done
check '[ ! -e ref/corrupt.glb ] && [ -s ref/corrupt.error.json ]' "corrupt job: error record, no GLB"
check 'grep -q "\"failed\": 1" ref/summary.json && grep -q "\"ok\": 5" ref/summary.json' "summary counts 5 ok, 1 failed"
check '! ls ref | grep -q "tmp-"' "no temporaries left"

# 2. Kill partway with SIGKILL, resume, compare. The last job samples at 90 fps
# (0.6 s here, 40x the other jobs) so that the kill lands before it ends even on a fast
# machine; at 6 fps the whole batch took 0.38 s against a 0.05 s poll.
"$bin" batch jobs.json -o killed --threads 1 --jobs 1 >/dev/null 2>&1 &
pid=$!
# a job is complete once its report exists (written last, atomically)
reports() { for j in aw2-free aw1-free aw2-walk-both self aw1-trot-rot; do [ -e killed/$j.json ] && echo $j; done; }
for _ in $(seq 1 3600); do
  [ -n "$(reports)" ] && break
  sleep 0.05
done
pkill -9 -P $pid 2>/dev/null; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
finished=$(reports)
declare -A before
for j in $finished; do before[$j]=$(cat killed/$j.timing.json); done
"$bin" batch jobs.json -o killed --threads 1 --resume > resume.log 2>&1
check '[ $? -eq 1 ]' "resumed run exits 1 (the corrupt job)"
for j in $finished; do
  check "[ \"\$(cat killed/$j.timing.json)\" = \"\${before[$j]}\" ]" "finished job $j was not redone"
done
for j in $ok_jobs; do
  check "cmp -s ref/$j.glb killed/$j.glb && cmp -s ref/$j.json killed/$j.json" "job $j byte-identical after kill + resume"
done
check 'cmp -s ref/summary.json killed/summary.json' "summary byte-identical after kill + resume"
nfin=$(echo $finished | wc -w)
check '[ $nfin -ge 1 ] && [ $nfin -lt 5 ]' "the kill landed after some but not all jobs finished ($nfin)"
echo "killed after $nfin finished job(s)"

# 3. Resume when everything is current redoes nothing.
"$bin" batch jobs.json -o ref --threads 1 --resume > again.log 2>&1
check 'grep -q "5 job(s) complete and current, skipped" again.log' "a current batch is not redone"

# 4. Shards partition the jobs; a later --resume assembles the summary.
"$bin" batch jobs.json -o sharded --threads 1 --shard 1/2 > s1.log 2>&1
"$bin" batch jobs.json -o sharded --threads 1 --shard 2/2 > s2.log 2>&1
n1=$(grep -cE "^(aw|self|corrupt)" s1.log); n2=$(grep -cE "^(aw|self|corrupt)" s2.log)
check '[ $((n1 + n2)) -eq 6 ]' "shard tables list 6 jobs in all ($n1 + $n2)"
for j in aw2-free aw1-free aw2-walk-both self corrupt aw1-trot-rot; do
  c=$(cat s1.log s2.log | grep -c "^$j ")
  check "[ $c -eq 1 ]" "job $j in exactly one shard"
done
"$bin" batch jobs.json -o sharded --threads 1 --resume > s3.log 2>&1
check 'grep -q "5 job(s) complete and current, skipped" s3.log' "resume after shards redoes no finished job"
for j in $ok_jobs; do check "cmp -s ref/$j.glb sharded/$j.glb" "job $j byte-identical across shards"; done
check 'cmp -s ref/summary.json sharded/summary.json' "summary assembled after shards equals the serial one"

# 5. Two local processes give the same bytes.
"$bin" batch jobs.json -o par --jobs 2 --threads 1 >/dev/null 2>&1
for j in $ok_jobs; do check "cmp -s ref/$j.glb par/$j.glb && cmp -s ref/$j.json par/$j.json" "job $j byte-identical with --jobs 2"; done

# 6. MPI (OpenMPI): 3 ranks = 1 coordinator + 2 workers.
if command -v mpirun >/dev/null && "$bin" batch --help | grep -q "MPI scale-out: built in"; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
  timeout 300 mpirun --oversubscribe -n 3 "$bin" batch jobs.json -o mpi --threads 1 > mpi.log 2>&1
  check '[ $? -eq 1 ]' "mpirun batch exits 1 (the corrupt job)"
  for j in $ok_jobs; do check "cmp -s ref/$j.glb mpi/$j.glb && cmp -s ref/$j.json mpi/$j.json" "job $j byte-identical under mpirun -n 3"; done
  check 'cmp -s ref/summary.json mpi/summary.json' "summary byte-identical under mpirun -n 3"
else
  echo "SKIPPED part: mpirun not available"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
