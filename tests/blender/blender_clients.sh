#!/usr/bin/env bash
# Blender 3.4 as a second playback client (issue 13 section 2; docs/blender.md).
#  (a) a transfer's baked GLB (the creature onto its autoweights rig; Horse
#      onto its autoweights rig, every clip): each clip played in Blender at
#      every frame, after a random pose and every other action, against
#      `skinfit bake` of the same GLB: <= 1e-5 of the diagonal;
#  (b) the same for decompositions with --pca (corrective shapes as shape
#      keys): the creature's Walk and Dem Bones' Bone_Anim;
#  (c) `skinfit bake` to PC2 + OBJ, played through Blender's Mesh Cache
#      modifier in a 24 fps scene (the clip is 30 fps), against the GLB's
#      clip in Blender: <= 1e-5;
#  (d) Blender's glTF re-export of a baked file read back by skinfit: the
#      same clip names, and every clip's bake within 1e-4 of the diagonal.
#  (e) a skeletal decomposition (decompose --skeleton) of the creature's
#      Walk: played as in (a), its armature nested as the bone tree (every
#      bone but the root has a parent bone) and every joint-to-parent-joint
#      distance constant over the clip in Blender (relative 1e-5).
# Exit 77 (skipped) without blender; the Quaternius / Dem Bones parts need
# $SKF_DATA and are skipped alone (said so) when it is absent.
set -u
bin=${SKF_BIN:?}; src=${SKF_SOURCE_DIR:?}; data=${SKF_DATA:-$src/../shared/data}
blender=${SKF_BLENDER:-blender}
command -v "$blender" >/dev/null || { echo "SKIPPED: blender not installed (scripts/setup.sh installs it)"; exit 77; }
dir=${SKF_BUILD_DIR:-/tmp}/blender_clients; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
run() { "$@" > log.txt 2>&1 || { echo "FAIL: $*"; cat log.txt; exit 1; }; }
run_blender() { # jobs.json
  "$blender" -b --factory-startup --python-exit-code 1 --python "$src/tests/blender/check.py" -- "$1" \
    > "$1.log" 2>&1
  local rc=$?
  grep -E '^(measured|blender checks):' "$1.log"
  [ $rc = 0 ] || { fail=1; grep -iE 'error|traceback' "$1.log" | head -20; }
}
# bake_jobs GLB PREFIX: bakes every clip of GLB to PREFIX_<i>.pc2 and prints
# the "clips" array of a play job (name, pc2, fps, start from bake's line)
bake_clips() {
  local glb=$1 prefix=$2 i=0 first=1
  printf '['
  while IFS= read -r name; do
    "$bin" bake "$glb" --clip "$name" -o "${prefix}_$i.pc2" > bake.txt 2>&1 || { cat bake.txt >&2; return 1; }
    # baked 'NAME' of F: N frames at FPS fps from START s, ...
    local fps start
    fps=$(sed -n 's/.* frames at \([0-9.e+-]*\) fps from \([0-9.e+-]*\) s,.*/\1/p' bake.txt)
    start=$(sed -n 's/.* frames at \([0-9.e+-]*\) fps from \([0-9.e+-]*\) s,.*/\2/p' bake.txt)
    [ $first = 1 ] || printf ','
    first=0
    python3 -c 'import json,sys; print(json.dumps({"name":sys.argv[1],"pc2":sys.argv[2],"fps":float(sys.argv[3]),"start":float(sys.argv[4])}))' \
      "$name" "$PWD/${prefix}_$i.pc2" "$fps" "$start"
    i=$((i + 1))
  done < <(clip_names "$glb")
  printf ']'
}
clip_names() { "$bin" info "$1" --json | python3 -c 'import json,sys; [print(c["name"]) for c in json.load(sys.stdin)["clips"]]'; }

# inputs
run "$bin" demo-asset -o creature.glb --vertices 1500
run "$bin" autoweights creature.glb -o creature_aw.glb
run "$bin" transfer --source creature.glb --target creature_aw.glb --all-clips --max-constraints 800 -o creature_tr.glb
run "$bin" decompose creature.glb --clip Walk --bones 8 --pca 3 --max-iterations 6 -o creature_dec.glb
# (e) a skeletal decomposition (--skeleton, issue 16): the armature nests as the bone tree, plays
#     as skinfit measured after a random pose, and its bones keep their lengths while it plays
run "$bin" decompose creature.glb --clip Walk --bones 10 --skeleton -o creature_skel.glb --report creature_skel.json
skel_nested=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bones"] - 1)' creature_skel.json) ||
  { echo "FAIL: creature_skel.json"; exit 1; }
have_data=0
if [ -f "$data/quaternius/animals/Horse.glb" ] && [ -f "$data/dembones/Bone_Anim.abc" ]; then
  have_data=1
  run "$bin" autoweights "$data/quaternius/animals/Horse.glb" -o horse_aw.glb
  run "$bin" transfer --source "$data/quaternius/animals/Horse.glb" --target horse_aw.glb --all-clips -o horse_tr.glb
  run "$bin" decompose "$data/dembones/Bone_Anim.abc" --bones 5 --pca 4 --max-iterations 6 -o boneanim_dec.glb
else
  echo "note: $data absent: Horse and Bone_Anim parts skipped, creature parts run"
fi
# (c): PC2 and an OBJ with the same vertices (frame 0 of the OBJ bake)
run "$bin" bake creature_tr.glb --clip Walk -o cache_walk.pc2
mkdir -p obj && run "$bin" bake creature_tr.glb --clip Walk -o obj/
walk_fps=$(sed -n 's/.* frames at \([0-9.e+-]*\) fps.*/\1/p' log.txt)

# run 1: (a), (b), (c), and the re-export of (d)
{
  printf '['
  printf '{"kind":"play","glb":"%s","tol":1e-5,"clips":%s},' "$PWD/creature_tr.glb" "$(bake_clips creature_tr.glb ctr)"
  printf '{"kind":"play","glb":"%s","tol":1e-5,"clips":%s},' "$PWD/creature_dec.glb" "$(bake_clips creature_dec.glb cdec)"
  printf '{"kind":"play","glb":"%s","tol":1e-5,"tree":%d,"tree_tol":1e-5,"clips":%s},' \
    "$PWD/creature_skel.glb" "$skel_nested" "$(bake_clips creature_skel.glb cskel)"
  if [ $have_data = 1 ]; then
    printf '{"kind":"play","glb":"%s","tol":1e-5,"clips":%s},' "$PWD/horse_tr.glb" "$(bake_clips horse_tr.glb htr)"
    printf '{"kind":"play","glb":"%s","tol":1e-5,"clips":%s},' "$PWD/boneanim_dec.glb" "$(bake_clips boneanim_dec.glb bdec)"
    printf '{"kind":"export","glb":"%s","out":"%s"},' "$PWD/horse_tr.glb" "$PWD/horse_blender.glb"
  fi
  printf '{"kind":"meshcache","glb":"%s","clip":"Walk","obj":"%s","pc2":"%s","scene_fps":24,"fps":%s,"start":0,"tol":1e-5},' \
    "$PWD/creature_tr.glb" "$PWD/obj/frame_0000.obj" "$PWD/cache_walk.pc2" "$walk_fps"
  printf '{"kind":"export","glb":"%s","out":"%s"}' "$PWD/creature_tr.glb" "$PWD/creature_blender.glb"
  printf ']'
} > jobs1.json || { echo "FAIL: preparing jobs"; exit 1; }
run_blender jobs1.json

# (d): the re-exports read back in skinfit: same clip names, bakes within 1e-4
jobs2='['
for pair in creature_tr:creature_blender horse_tr:horse_blender; do
  a=${pair%%:*} b=${pair#*:}
  [ -f "$b.glb" ] || { [ "$b" = horse_blender ] && [ $have_data = 0 ] && continue; echo "FAIL: $b.glb not written"; fail=1; continue; }
  if [ "$(clip_names "$a.glb" | sed 's/.*|//' | sort)" = "$(clip_names "$b.glb" | sed 's/.*|//' | sort)" ]; then
    echo "ok   $b.glb: the same $(clip_names "$b.glb" | wc -l) clip names as $a.glb"
  else
    echo "FAIL $b.glb clip names differ:"; clip_names "$a.glb"; echo "--"; clip_names "$b.glb"; fail=1
  fi
  i=0
  while IFS= read -r name; do
    short=${name##*|}
    run "$bin" bake "$a.glb" --clip "$name" -o "${a}_re_$i.pc2"
    # Blender samples at its scene rate (24 fps): bake both at the original's times
    fps=$(sed -n 's/.* frames at \([0-9.e+-]*\) fps.*/\1/p' log.txt)
    if "$bin" bake "$b.glb" --clip "$short" --fps "$fps" -o "${b}_re_$i.pc2" > log.txt 2>&1; then
      jobs2+=$(printf '{"kind":"compare","a":"%s","b":"%s","tol":1e-4,"pair":"%s"},' "$PWD/${a}_re_$i.pc2" "$PWD/${b}_re_$i.pc2" "$a")
    else
      echo "FAIL: skinfit bake $b.glb --clip $short: $(cat log.txt)"; fail=1
    fi
    i=$((i + 1))
  done < <(clip_names "$a.glb")
done
echo "${jobs2%,}]" > jobs2.json
run_blender jobs2.json
[ $fail = 0 ] && echo "all Blender checks passed" || echo "some Blender checks FAILED"
exit $fail
