#!/bin/sh
# usage: reach.sh VERBOSE_VAR REPLAY INPUT "stage: ok"...
# Replays INPUT with the harness's trace switched on and fails unless every
# listed stage line appears (the seed reaches the code the harness targets)
# and the replay itself exits 0.
var=$1 replay=$2 input=$3
shift 3
log=$(env "$var=1" "$replay" "$input" 2>&1)
rc=$?
printf '%s\n' "$log"
[ "$rc" -eq 0 ] || { echo "reach: replay exited $rc"; exit 1; }
for stage in "$@"; do
  printf '%s\n' "$log" | grep -qF "$stage" || { echo "reach: '$stage' not reached"; exit 1; }
done
echo "reach: all $# stages reached"
