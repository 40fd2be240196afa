#!/bin/sh
# skinfit demo-asset: help, usage errors (exit 2), I/O error (exit 1, one line
# naming the file, no output), success (exit 0, a GLB with the header magic),
# and the same bytes twice (deterministic).
set -u
bin="${SKF_BIN:?SKF_BIN not set}"
dir="${SKF_BUILD_DIR:-.}/gltfwrite_cli"
rm -rf "$dir" && mkdir -p "$dir"
fail=0
expect() { # expect CODE cmd...
    want=$1; shift
    "$@" >"$dir/out.txt" 2>"$dir/err.txt"; got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: exit $got, expected $want: $*"; cat "$dir/err.txt"; fail=1
    else
        echo "ok   exit $got: $*"
    fi
}
expect 0 "$bin" demo-asset --help
grep -q "usage: skinfit demo-asset" "$dir/out.txt" || { echo "FAIL: help text"; fail=1; }
expect 0 "$bin" help demo-asset
expect 2 "$bin" demo-asset
expect 2 "$bin" demo-asset -o "$dir/a.glb" --vertices 12
expect 2 "$bin" demo-asset -o "$dir/a.glb" --vertices lots
expect 2 "$bin" demo-asset -o "$dir/a.glb" --fps 0
expect 2 "$bin" demo-asset -o "$dir/a.glb" --bogus
[ -e "$dir/a.glb" ] && { echo "FAIL: usage error wrote a file"; fail=1; }
expect 1 "$bin" demo-asset -o "$dir/no/such/dir/a.glb"
[ "$(wc -l < "$dir/err.txt")" = 1 ] && grep -q "no/such/dir/a.glb" "$dir/err.txt" \
    || { echo "FAIL: I/O error message:"; cat "$dir/err.txt"; fail=1; }
expect 1 "$bin" demo-asset -o "$dir"
expect 0 "$bin" demo-asset -o "$dir/a.glb" --vertices 2000
cat "$dir/out.txt"
[ "$(head -c 4 "$dir/a.glb")" = "glTF" ] || { echo "FAIL: not a GLB"; fail=1; }
expect 0 "$bin" demo-asset -o "$dir/b.glb" --vertices 2000
cmp -s "$dir/a.glb" "$dir/b.glb" || { echo "FAIL: output not deterministic"; fail=1; }
ls "$dir" | grep -q "tmp-" && { echo "FAIL: temporary left behind"; fail=1; }
exit $fail
