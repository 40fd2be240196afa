#!/usr/bin/env bash
# Issue 17 §1 and §5 for batch: job names that would collide with the
# summary or another job's files are refused at parse time; a job output that
# would replace the manifest or a job's input is refused before anything runs;
# one batch per output folder (a live lock refused with exit 1, a stale one
# taken over); workers die with their batch (kill -9 of the batch leaves no
# worker running). Prints "N passed, N failed".
set -u
bin=${SKF_BIN:?}
work=$(mktemp -d /tmp/skf-batchg-XXXXXX)
holder=
trap '[ -n "$holder" ] && kill $holder 2>/dev/null; rm -rf "$work"' EXIT
pass=0 fail=0
check() { if eval "$1"; then pass=$((pass+1)); echo "ok   $2"; else fail=$((fail+1)); echo "FAIL $2" >&2; fi; }
cd "$work"
"$bin" demo-asset -o creature.glb --vertices 600 >/dev/null || { echo "demo-asset failed"; exit 1; }
"$bin" autoweights creature.glb -o aw.glb >/dev/null || exit 1

# reserved names (parse time, before anything runs)
for n in summary Summary x.timing x.error; do
  printf '{"defaults":{"source":"creature.glb","clips":["Walk"],"fps":4},"jobs":[{"name":"%s","target":"aw.glb"}]}\n' "$n" > r.json
  "$bin" batch r.json -o out_r > o.txt 2> e.txt; rc=$?
  check "[ $rc = 1 ] && grep -q \"r.json: jobs\\[0\\].name: '$n' is reserved\" e.txt && [ ! -e out_r/summary.json ]" \
    "job named '$n' refused at parse time: $(cat e.txt)"
done

# a job named like the manifest, with OUTDIR = the manifest's folder
mkdir -p m
cp creature.glb aw.glb m/
printf '{"defaults":{"source":"creature.glb","clips":["Walk"],"fps":4},"jobs":[{"name":"jobs2","target":"aw.glb"}]}\n' > m/jobs2.json
sum=$(cksum < m/jobs2.json)
"$bin" batch m/jobs2.json -o m > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q 'm/jobs2.json: refusing to overwrite an input file (the manifest)' e.txt" "job output onto the manifest refused: $(cat e.txt)"
check "[ \"\$(cksum < m/jobs2.json)\" = \"$sum\" ] && [ ! -e m/jobs2.glb ]" "manifest unchanged, nothing run"
# a job whose output is its own target
printf '{"defaults":{"source":"creature.glb","clips":["Walk"],"fps":4},"jobs":[{"name":"aw","target":"aw.glb"}]}\n' > m/self.json
"$bin" batch m/self.json -o m > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q 'm/aw.glb: refusing to overwrite an input file (jobs\\[0\\].target)' e.txt" "job output onto its target refused: $(cat e.txt)"

# per-clip checkpoints (OUTDIR/<name>.clip-<k>.ckpt) are outputs too: a job
# whose checkpoint would replace its target (and then delete it, when the job
# completes) or the manifest is refused before anything runs
mkdir -p k
cp aw.glb k/aw2.clip-0.ckpt
sum=$(cksum < k/aw2.clip-0.ckpt)
printf '{"defaults":{"source":"creature.glb","clips":["Walk"],"fps":4},"jobs":[{"name":"aw2","target":"k/aw2.clip-0.ckpt"}]}\n' > ck.json
"$bin" batch ck.json -o k > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q 'k/aw2.clip-0.ckpt: refusing to overwrite an input file (jobs\\[0\\].target)' e.txt" "checkpoint onto the job's target refused: $(cat e.txt)"
check "[ \"\$(cksum < k/aw2.clip-0.ckpt 2>/dev/null)\" = \"$sum\" ] && [ ! -e k/aw2.glb ]" "target unchanged, nothing run"
printf '{"defaults":{"source":"../creature.glb","target":"../aw.glb","clips":["Walk"],"fps":4},"jobs":[{"name":"j"}, {"name":"m"}]}\n' > k/m.clip-12.ckpt
sum=$(cksum < k/m.clip-12.ckpt)
"$bin" batch k/m.clip-12.ckpt -o k > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q 'k/m.clip-12.ckpt: refusing to overwrite an input file (the manifest)' e.txt && [ \"\$(cksum < k/m.clip-12.ckpt)\" = \"$sum\" ]" "checkpoint of jobs[1] onto the manifest refused: $(cat e.txt)"
# names equal but for case write the same files (outputs and checkpoints) on a
# case-insensitive file system
printf '{"defaults":{"source":"creature.glb","clips":["Walk"],"fps":4},"jobs":[{"name":"Fox","target":"aw.glb"},{"name":"fox","target":"aw.glb"}]}\n' > case.json
"$bin" batch case.json -o out_case > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q \"case.json: jobs\\[1\\].name: 'fox' is already used by jobs\\[0\\] (names that differ only in case\" e.txt && [ ! -e out_case/summary.json ]" "names equal but for case refused at parse time: $(cat e.txt)"

# the lock: live owner refused, stale owner taken over
printf '{"defaults":{"source":"creature.glb","fps":4},"jobs":[{"name":"a","target":"aw.glb","clips":["Walk"]}]}\n' > j.json
mkdir -p L
flock -o L/.skinfit-batch.lock sleep 30 & holder=$!
sleep 0.3
echo $holder > L/.skinfit-batch.lock
"$bin" batch j.json -o L > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q \"L: in use by another batch (pid $holder\" e.txt && [ ! -e L/a.glb ]" "live lock refused: $(cat e.txt)"
"$bin" batch j.json -o L --shard 1/2 > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q 'in use by another batch' e.txt" "a shard run refused while a whole run holds the folder"
pkill -P $holder sleep; kill $holder; wait $holder 2>/dev/null; holder=
sh -c 'exit 0' & dead=$!; wait $dead
echo $dead > L/.skinfit-batch.lock
"$bin" batch j.json -o L > o.txt 2> e.txt; rc=$?
check "[ $rc = 0 ] && [ -s L/a.glb ] && [ -s L/summary.json ]" "stale lock (dead pid $dead) taken over: exit $rc $(cat e.txt)"

# two batches on one folder: the second refuses while the first runs. The job
# must outlast the second batch's start by a wide margin on a fast machine: a
# 30k-vertex target of another mesh (registration) at 240 frames per second
# (2.7 s here; the 600-vertex one at 30 fps took 0.27 s, a race).
"$bin" demo-asset -o big.glb --vertices 30000 >/dev/null || exit 1
printf '{"defaults":{"source":"creature.glb","clips":"all","fps":240,"mode":"both"},"jobs":[{"name":"slow","target":"big.glb"}]}\n' > slow.json
"$bin" batch slow.json -o S --threads 1 > s1.txt 2>&1 & first=$!
worker=
for _ in $(seq 1 200); do
  worker=$(pgrep -P $first | head -1)
  [ -n "$worker" ] && break
  sleep 0.02
done
"$bin" batch slow.json -o S > o.txt 2> e.txt; rc=$?
check "[ $rc = 1 ] && grep -q \"S: in use by another batch (pid $first\" e.txt" "second batch on one folder refused: $(cat e.txt)"
# kill -9 of the batch: its worker must not survive it
check "[ -n \"$worker\" ]" "the batch started a worker ($worker)"
kill -9 $first; wait $first 2>/dev/null
gone=0
for _ in $(seq 1 100); do
  kill -0 "$worker" 2>/dev/null || { gone=1; break; }
  sleep 0.05
done
check "[ $gone = 1 ]" "worker $worker died with its batch"
[ $gone = 1 ] || kill -9 "$worker" 2>/dev/null
check '! ls S | grep -q "tmp-"' "the dead worker left no temporaries"
"$bin" batch slow.json -o S --threads 1 > o.txt 2> e.txt; rc=$?
check "[ $rc = 0 ]" "the folder is free again after the batch died (exit $rc)"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
