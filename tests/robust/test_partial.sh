#!/usr/bin/env bash
# Issue 17 §5 and §6: folder outputs are replaced as a whole (SIGTERM or a
# failure partway leaves the previous frames, all of them, and no temporary);
# a folder holding other files is refused before any work; a legal 251-byte
# output name works (its temporary stays within NAME_MAX); a multi-output
# run commits all outputs or none.
set -u
bin=${SKF_BIN:?}
dir=${SKF_BUILD_DIR:-/tmp}/robust_partial; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0; checks=0
ok()  { checks=$((checks + 1)); echo "ok   $*"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
"$bin" demo-asset -o creature.glb --vertices 600 > /dev/null || { echo "demo-asset failed"; exit 1; }

# bake -o seq/ over an earlier bake, killed partway: the old frames stay, all of them
"$bin" bake creature.glb --clip Trot -o seq/ > /dev/null 2>&1 || bad "first bake"
old=$(cd seq && cksum frame_*.obj)
n_old=$(ls seq | wc -l)
touch -d '-1 min' marker; sleep 0.01
touch marker
"$bin" bake creature.glb --clip Walk --fps 3000 -o seq/ > /dev/null 2> term.txt & pid=$!
killed=0
for _ in $(seq 1 1000); do
  # new frames, wherever the bake puts them (beside seq/ or inside it)
  if [ "$(find seq seq.tmp-* -name 'frame_*' -newer marker 2>/dev/null | wc -l)" -gt 20 ]; then
    kill -TERM $pid; killed=1; break
  fi
  kill -0 $pid 2>/dev/null || break
  sleep 0.01
done
wait $pid; rc=$?
if [ $killed = 1 ]; then
  [ $rc = 143 ] && ok "bake killed by SIGTERM (exit 143)" || bad "bake after SIGTERM: exit $rc"
  [ "$(cd seq && cksum frame_*.obj)" = "$old" ] && [ "$(ls seq | wc -l)" = "$n_old" ] \
    && ok "seq/ holds exactly the previous $n_old frames" || bad "seq/ holds a mix: $(ls seq | wc -l) files, $n_old before"
  [ -z "$(ls -d seq.tmp-* 2>/dev/null)" ] && ok "no temporary folder left" || bad "temporary folder left: $(ls -d seq.tmp-*)"
else
  bad "could not catch the bake partway (rc $rc)"
fi
# a complete rebake swaps in the new frames and removes the stale ones
"$bin" bake creature.glb --clip Walk --fps 10 -o seq/ > /dev/null 2>&1 || bad "rebake"
n_new=$(ls seq | wc -l)
[ "$n_new" -lt "$n_old" ] && [ -z "$(ls -d seq.tmp-* 2>/dev/null)" ] && ok "rebake: $n_new frames replace $n_old" || bad "rebake: $n_new frames, $n_old before"
# a folder holding other files is refused before any work, untouched
touch seq/notes.txt
"$bin" bake creature.glb --clip Trot -o seq/ > out.txt 2> err.txt; rc=$?
[ $rc = 1 ] && grep -q "seq/: holds 'notes.txt', which this output would not replace" err.txt && [ "$(ls seq | wc -l)" = $((n_new + 1)) ] \
  && ok "folder with other files refused (exit 1: $(cat err.txt))" || bad "folder with other files: exit $rc, $(cat err.txt)"

# 251-byte output names (NAME_MAX 255): the temporary must fit too
long=$(printf 'a%.0s' $(seq 1 247))
"$bin" autoweights creature.glb -o "$long.glb" > out.txt 2> err.txt; rc=$?
[ $rc = 0 ] && [ -s "$long.glb" ] && ok "251-byte output name written" || bad "251-byte name: exit $rc, $(cat err.txt)"
"$bin" bake creature.glb --clip Walk --fps 4 -o "$long.pc2" > out.txt 2> err.txt; rc=$?
[ $rc = 0 ] && [ -s "$long.pc2" ] && ok "251-byte .pc2 name written" || bad "251-byte pc2 name: exit $rc, $(cat err.txt)"
lfold=$(printf 'b%.0s' $(seq 1 250))
"$bin" bake creature.glb --clip Walk --fps 4 -o "$lfold/" > out.txt 2> err.txt; rc=$?
[ $rc = 0 ] && [ -s "$lfold/frame_0000.obj" ] && ok "250-byte folder name written" || bad "250-byte folder: exit $rc, $(cat err.txt)"
[ -z "$(ls | grep tmp-)" ] && ok "no temporaries left" || bad "temporaries left: $(ls | grep tmp-)"

# multi-output runs commit all outputs or none
"$bin" bake creature.glb --clip Walk --fps 6 -o dseq/ > /dev/null 2>&1 || bad "bake dseq/"
"$bin" decompose dseq --bones 3 --max-iterations 2 -o d.glb --reconstruction nodir/r.mdd > out.txt 2> err.txt; rc=$?
[ $rc = 1 ] && [ ! -e d.glb ] && grep -q "nodir/r.mdd" err.txt && ok "decompose: second output fails -> no first output (exit 1: $(cat err.txt))" \
  || bad "decompose: second output failed: exit $rc, d.glb $( [ -e d.glb ] && echo left || echo absent), $(cat err.txt)"
"$bin" autoweights creature.glb -o aw.glb > /dev/null 2>&1
"$bin" transfer --source creature.glb --target aw.glb --clip Walk --max-constraints 300 -o t.glb --report t.json --html nodir/t.html > out.txt 2> err.txt; rc=$?
[ $rc = 1 ] && [ ! -e t.glb ] && [ ! -e t.json ] && ok "transfer: HTML fails -> no GLB, no report (exit 1: $(cat err.txt))" \
  || bad "transfer: HTML failed: exit $rc, $(ls t.glb t.json 2>/dev/null) $(cat err.txt)"
"$bin" decompose dseq --bones 3 --max-iterations 2 -o d.glb --reconstruction r.mdd --report d.json > out.txt 2> err.txt; rc=$?
[ $rc = 0 ] && [ -s d.glb ] && [ -s r.mdd ] && [ -s d.json ] && ok "decompose: all three outputs committed" || bad "decompose all outputs: exit $rc, $(cat err.txt)"
[ -z "$(ls | grep -e tmp- -e stage-)" ] && ok "no staged temporaries left" || bad "staged temporaries left: $(ls | grep -e tmp- -e stage-)"

echo "$((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
