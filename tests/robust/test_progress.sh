#!/usr/bin/env bash
# Issue 17 §6: with stderr not a terminal, `skinfit --progress` prints whole
# "skinfit: progress: …" lines every few seconds (here every 0 s, by
# $SKF_PROGRESS_INTERVAL); without it stderr stays silent, so tests and
# scripts that parse stderr see exactly what they did before. stdout is the
# same either way.
set -u
bin=${SKF_BIN:?}
dir=${SKF_BUILD_DIR:-/tmp}/robust_progress; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0; checks=0
ok()  { checks=$((checks + 1)); echo "ok   $*"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
"$bin" demo-asset -o creature.glb --vertices 600 > /dev/null || exit 1
export SKF_PROGRESS_DELAY=0 SKF_PROGRESS_INTERVAL=0
"$bin" bake creature.glb --clip Walk -o a.pc2 > out1.txt 2> err1.txt; rc1=$?
"$bin" --progress bake creature.glb --clip Walk -o b.pc2 > out2.txt 2> err2.txt; rc2=$?
[ $rc1 = 0 ] && [ ! -s err1.txt ] && ok "no --progress: stderr empty" || bad "no --progress: exit $rc1, stderr $(head -c 200 err1.txt)"
n=$(grep -c '^skinfit: progress: *[0-9.]* % .* ([0-9]* s)$' err2.txt)
[ $rc2 = 0 ] && [ "$n" -ge 2 ] && [ "$(grep -vc '^skinfit: progress:' err2.txt)" = 0 ] \
  && ok "--progress: $n progress lines, nothing else ($(tail -1 err2.txt))" || bad "--progress: exit $rc2, $n lines: $(head -c 300 err2.txt)"
[ "$(sed 's/b.pc2/a.pc2/' out2.txt)" = "$(cat out1.txt)" ] && ok "stdout unchanged" || bad "stdout differs"
cmp -s a.pc2 b.pc2 && ok "output unchanged" || bad "outputs differ"
"$bin" --progress transfer --source creature.glb --target creature.glb --clip Walk --max-constraints 200 -o t.glb > out3.txt 2> err3.txt; rc=$?
[ $rc = 0 ] && grep -q '^skinfit: progress:' err3.txt && ok "transfer --progress lines" || bad "transfer --progress: exit $rc $(head -c 200 err3.txt)"
# Several clips: the percentage is of the whole run, so it never falls back.
"$bin" --progress transfer --source creature.glb --target creature.glb --all-clips --max-constraints 200 -o t2.glb > /dev/null 2> err4.txt; rc=$?
pcts=$(sed -n 's/^skinfit: progress: *\([0-9.]*\) % .*(clip \([0-9]*\) of \([0-9]*\).*/\1 \2 \3/p' err4.txt)
clips=$(echo "$pcts" | awk '{print $2}' | sort -u | wc -l)
falls=$(echo "$pcts" | awk 'NR > 1 && $1 + 0 < last { n++ } { last = $1 + 0 } END { print n + 0 }')
[ $rc = 0 ] && [ "$clips" -ge 2 ] && [ "$falls" = 0 ] && ok "transfer --all-clips: $clips clips, percentage never falls ($(echo "$pcts" | tail -1))" \
  || bad "transfer --all-clips: exit $rc, $clips clips, $falls falls"
echo "$((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
