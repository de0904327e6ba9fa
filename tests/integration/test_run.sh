#!/usr/bin/env bash
# run: commands in the sandbox, their changes as layers (docs/run.md). On a scratch image with a
# static busybox (sh, nc, chown, id), checked with umoci unpack and the layer tars themselves:
#  - a file created, one changed, one deleted (a whiteout in the layer, gone after umoci unpack), a
#    directory removed and made again (an opaque directory: the lower children do not show through);
#  - build litter (/tmp, /var/log) left out; the item's env and the image's Env reach the command;
#  - user: and workdir: (a missing workdir is made); files the user writes keep its uid;
#  - a warm build runs nothing and gives the same digest; a cold build in another store too;
#    a changed cache_key file runs the item again;
#  - a failing command: exit 1, its exit code and last lines in the message, no output written;
#  - rockpack check runs checks: and --run on the image; a failing check exits 1 and shows its output;
#  - rootless (uid 65534 in a user namespace, where the machine allows it): the same digest as root;
#  - a timeout; no network by default (a loopback server is unreachable), network: true reaches it;
#  - the image's /tmp is seen (files: into /tmp, workdir: /tmp/build), its changes left out; a
#    command that cannot start names the runtime's reason, not "exit code 125".
source "$(dirname "$0")/lib/common.sh"
need umoci; need file; need python3
[ "$(id -u)" -eq 0 ] || skip "the sandbox's checks here need root (chroot, namespaces, other uids)"
need_sandbox
export SOURCE_DATE_EPOCH=1700000000
BUSYBOX=$(static_busybox)
cd "$WORK"
mkdir -p ctx
cp "$BUSYBOX" ctx/busybox

# The base: busybox as /bin/sh and friends, and the files the run step will change.
cat >base.yaml <<'EOF'
name: run-base
files:
  - {src: busybox, dest: /bin/busybox, mode: 0755}
  - {content: "keep\n", dest: /etc/keep}
  - {content: "old\n", dest: /etc/change}
  - {content: "gone\n", dest: /etc/gone}
  - {content: "a\n", dest: /opt/dir/a}
  - {content: "b\n", dest: /opt/dir/b}
symlinks:
  - {path: /bin/sh, target: busybox}
env:
  PATH: /bin
EOF
cp base.yaml ctx/
"$ROCKPACK" --quiet build ctx/base.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:base" >/dev/null 2>base.log ||
  fail "base build failed: $(cat base.log)"
for tool in chown id mkdir rm cat env sleep ls; do echo "  - {path: /bin/$tool, target: busybox}"; done >tools.txt

echo "input-1" >ctx/input.txt
cat >ctx/run.yaml <<EOF
name: run-test
base: oci:$WORK/img:base
symlinks:
$(cat tools.txt)
files:
  - {content: "planned\\n", dest: /etc/planned}
env:
  FROM_RECIPE: recipe-value
run:
  - name: edit
    cache_key: [input.txt]
    env: {FROM_ITEM: item-value}
    shell: |
      echo hello-from-edit
      busybox stat -c %Y /etc/keep /etc/planned > /etc/mtimes
      echo new > /etc/new
      echo changed > /etc/change
      rm /etc/gone
      rm -rf /opt/dir && mkdir /opt/dir && echo c > /opt/dir/c
      mkdir -p /tmp/x && echo litter > /tmp/x/l
      mkdir -p /var/log && echo log > /var/log/l
      env > /etc/step-env
      mkdir -p /home/u && chown 1000:1000 /home/u
  - name: as-user
    user: "1000:1000"
    workdir: /home/u/work-made
    shell: id -u > /home/u/uid; pwd > /home/u/pwd
  - name: second-layer
    command: [/bin/sh, -c, "echo second > /etc/second"]
checks:
  - {name: new-file, shell: 'test "\$(cat /etc/new)" = new'}
  - {name: recipe-env, command: [/bin/sh, -c, 'test "\$FROM_RECIPE" = recipe-value']}
EOF
"$ROCKPACK" build ctx/run.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:run" >d1.txt 2>cold.log || fail "run build failed: $(cat cold.log)"
D1=$(tail -n 1 d1.txt)
assert_contains "$(cat cold.log)" "hello-from-edit" "the command's output is in the log"
umoci unpack --image "$WORK/img:run" u >/dev/null
R=u/rootfs
assert_eq "$(cat $R/etc/new)" "new" "a created file"
assert_eq "$(cat $R/etc/change)" "changed" "a changed file"
assert_eq "$(cat $R/etc/keep)" "keep" "an untouched lower file"
[ ! -e $R/etc/gone ] || fail "a deleted file is still there after umoci unpack"
assert_eq "$(ls $R/opt/dir | tr '\n' ' ')" "c " "an opaque directory hides the lower children"
[ ! -e $R/tmp/x ] || fail "/tmp litter reached the image"
[ ! -e $R/var/log/l ] || fail "/var/log litter reached the image"
grep -qx "FROM_ITEM=item-value" $R/etc/step-env || fail "the item's env did not reach the command"
grep -qx "FROM_RECIPE=recipe-value" $R/etc/step-env || fail "the image's Env did not reach the command"
assert_eq "$(cat $R/home/u/uid)" "1000" "user: runs the command as that uid"
assert_eq "$(cat $R/home/u/pwd)" "/home/u/work-made" "workdir: is the command's working directory (made when missing)"
assert_eq "$(stat -c %u:%g $R/home/u/uid)" "1000:1000" "a file the user wrote keeps its owner"
assert_eq "$(cat $R/etc/second)" "second" "a command: item"
# What a command reads of the image's files is what the image has: a base file's and a planned
# file's mtime are SOURCE_DATE_EPOCH (a .pyc compiled there then matches its source in the image).
assert_eq "$(cat $R/etc/mtimes | tr '\n' ' ')" "1700000000 1700000000 " "files in the sandbox have the image's mtimes"

# The layers themselves: one per item, the whiteout and the opaque marker in the first.
python3 - "$WORK/img" >layers.txt <<'EOF'
import json, sys, tarfile, os
root = sys.argv[1]
index = json.load(open(os.path.join(root, "index.json")))
m = [d for d in index["manifests"] if d.get("annotations", {}).get("org.opencontainers.image.ref.name") == "run"][0]
blob = lambda d: os.path.join(root, "blobs", *d.split(":"))
manifest = json.load(open(blob(m["digest"])))
config = json.load(open(blob(manifest["config"]["digest"])))
history = [h for h in config["history"] if not h.get("empty_layer")]
for h, l in zip(history, manifest["layers"]):
    if "rockpack run" not in h.get("created_by", ""): continue
    with tarfile.open(blob(l["digest"])) as t:
        names = sorted(t.getnames())
    print(h["created_by"].split(":")[0] + "|" + " ".join(names))
EOF
assert_eq "$(wc -l <layers.txt)" "3" "one layer per run item"
EDIT=$(grep "^rockpack run edit|" layers.txt)
assert_contains "$EDIT" "etc/.wh.gone" "the deletion is a whiteout"
assert_contains "$EDIT" "opt/dir/.wh..wh..opq" "the remade directory is opaque"
case "$EDIT" in *tmp/x*|*var/log/l*) fail "litter in the layer: $EDIT";; esac

# Warm: nothing runs, same digest. Cold in another store: same digest.
"$ROCKPACK" build ctx/run.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:run2" >d2.txt 2>warm.log || fail "warm build failed: $(cat warm.log)"
assert_eq "$(tail -n 1 d2.txt)" "$D1" "a warm build gives the same digest"
case "$(cat warm.log)" in *hello-from-edit*) fail "the warm build ran the command again";; esac
assert_contains "$(cat warm.log)" "run edit: cached" "the warm build says the layer was cached"
"$ROCKPACK" build ctx/run.yaml --cache-dir "$WORK/c2" -o "oci:$WORK/img:run3" >d3.txt 2>cold2.log || fail "second cold build failed: $(cat cold2.log)"
assert_eq "$(tail -n 1 d3.txt)" "$D1" "two cold builds in two stores give the same digest"

# rockpack check: the recipe's checks: and --run commands in the sandbox on the finished image.
out=$("$ROCKPACK" check "oci:$WORK/img:run" --recipe ctx/run.yaml --cache-dir "$WORK/c" 2>check.log) || fail "check failed: $out $(cat check.log)"
assert_contains "$out" "2 of 2 checks passed" "rockpack check runs the recipe's checks"
rc=0; out=$("$ROCKPACK" check "oci:$WORK/img:run" --run 'echo check-says-no; exit 4' --run 'true' --cache-dir "$WORK/c" 2>&1) || rc=$?
assert_eq "$rc" "1" "a failing check: exit code"
assert_contains "$out" "FAILED  run-1: exit code 4" "a failing check is named with its exit code"
assert_contains "$out" "check-says-no" "a failing check's output is shown"
assert_contains "$out" "1 of 2 checks passed" "the other check still runs"
rc=0; out=$("$ROCKPACK" check "oci:$WORK/img:run" --cache-dir "$WORK/c" 2>&1) || rc=$?
assert_eq "$rc" "2" "nothing to check: exit code"

# A changed cache_key input runs the item again.
echo "input-2" >ctx/input.txt
"$ROCKPACK" build ctx/run.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:run4" >/dev/null 2>rerun.log || fail "rebuild failed: $(cat rerun.log)"
assert_contains "$(cat rerun.log)" "hello-from-edit" "a changed cache_key file runs the item again"

# A failing command: exit 1, its exit code and last lines, nothing written.
cat >ctx/fail.yaml <<EOF
name: run-fail
base: oci:$WORK/img:base
run:
  - name: breaks
    shell: echo about-to-fail; echo second-line >&2; exit 3
EOF
rc=0; out=$("$ROCKPACK" build ctx/fail.yaml --cache-dir "$WORK/c" -o "oci:$WORK/failed:x" 2>&1) || rc=$?
assert_eq "$rc" "1" "a failing command: exit code"
assert_contains "$out" "exit code 3" "a failing command: its exit code is named"
assert_contains "$out" "about-to-fail" "a failing command: its last lines are shown"
assert_contains "$out" "fail.yaml:" "a failing command: the item's place in the recipe"
[ ! -e "$WORK/failed" ] || fail "a failing command wrote an output"

# A timeout.
cat >ctx/slow.yaml <<EOF
name: run-slow
base: oci:$WORK/img:base
symlinks: [{path: /bin/sleep, target: busybox}]
run:
  - {name: slow, timeout: 1, shell: "sleep 60"}
EOF
start=$(date +%s)
rc=0; out=$("$ROCKPACK" build ctx/slow.yaml --cache-dir "$WORK/c" -o "oci:$WORK/slow:x" 2>&1) || rc=$?
assert_eq "$rc" "1" "a timeout: exit code"
assert_contains "$out" "time limit of 1 s" "a timeout is named"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "the timeout did not stop the command"

# The network: off by default, on with network: true.
mkdir -p www && echo served >www/index.html
python3 -m http.server 0 --bind 127.0.0.1 --directory www >http.log 2>&1 &
track_pid $!
for _ in $(seq 1 100); do PORT=$(grep -o 'port [0-9]*' http.log | grep -o '[0-9]*' || true); [ -n "$PORT" ] && break; sleep 0.1; done
[ -n "$PORT" ] || fail "the loopback server did not start"
# (busybox's static wget crashes in a chroot: its nc speaks HTTP/1.0 just as well.)
cat >ctx/net.yaml <<EOF
name: run-net
base: oci:$WORK/img:base
symlinks: [{path: /bin/nc, target: busybox}]
run:
  - name: fetch
    shell: |
      printf 'GET /index.html HTTP/1.0\r\n\r\n' | nc -w 5 127.0.0.1 $PORT > /got
EOF
rc=0; out=$("$ROCKPACK" build ctx/net.yaml --cache-dir "$WORK/c" -o "oci:$WORK/net:x" 2>&1) || rc=$?
assert_eq "$rc" "1" "no network by default: the loopback server is unreachable"
assert_contains "$out" "can't connect to remote host" "no network by default: the connection is refused"
sed -i 's/  - name: fetch/  - name: fetch\n    network: true/' ctx/net.yaml
"$ROCKPACK" --quiet build ctx/net.yaml --cache-dir "$WORK/c" -o "oci:$WORK/net:y" >/dev/null 2>net.log || fail "network: true failed: $(cat net.log)"
umoci unpack --image "$WORK/net:y" n >/dev/null
assert_eq "$(tail -n 1 n/rootfs/got)" "served" "network: true reaches the loopback server"

# Rootless (when this machine allows unprivileged user namespaces): the same item built as uid
# 65534 gives the same digest as the build as root — files the command writes are root's in both.
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups unshare -U true 2>/dev/null; then
  mkdir -p rl && cp "$BUSYBOX" rl/busybox
  cat >rl/r.yaml <<'EOF'
name: rootless
files:
  - {src: busybox, dest: /bin/busybox, mode: 0755}
symlinks:
  - {path: /bin/sh, target: busybox}
  - {path: /bin/mkdir, target: busybox}
  - {path: /bin/id, target: busybox}
run:
  - {name: hello, shell: "mkdir -p /opt/x && id -u > /opt/x/uid"}
EOF
  chown -R 65534:65534 rl
  root_digest=$("$ROCKPACK" --quiet build rl/r.yaml --cache-dir "$WORK/c" -o "oci:$WORK/rlroot:x" 2>/dev/null | tail -n 1)
  chmod o+x "$WORK"
  rootless_digest=$(setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CACHE_HOME="$WORK/rl/cache" \
    "$ROCKPACK" --quiet build "$WORK/rl/r.yaml" -o "oci:$WORK/rl/img:x" 2>"$WORK/rootless.log" | tail -n 1) ||
    fail "the rootless build failed: $(cat "$WORK/rootless.log")"
  assert_eq "$rootless_digest" "$root_digest" "a rootless build gives the root build's digest"
else
  echo "test_run: unprivileged user namespaces are not allowed here; the rootless case was skipped"
fi

# Where the sandbox cannot run (ROCKPACK_SANDBOX=off stands in for an unprivileged container): the
# item fails with why, and nothing is written.
rc=0; out=$(ROCKPACK_SANDBOX=off "$ROCKPACK" build ctx/fail.yaml --cache-dir "$WORK/c" -o "oci:$WORK/off:x" 2>&1) || rc=$?
assert_eq "$rc" "1" "no sandbox: exit code"
assert_contains "$out" "ROCKPACK_SANDBOX=off" "no sandbox: the reason"
[ ! -e "$WORK/off" ] || fail "no sandbox: an output was written"

# The image's /tmp is what a command sees (the Dockerfile COPY-to-/tmp pattern; workdir: /tmp/build),
# and what it changes there stays out of the layer. A command that cannot start says why.
cat >ctx/tmp.yaml <<EOF
name: run-tmp
base: oci:$WORK/img:base
symlinks:
$(cat tools.txt)
files:
  - {content: "from-files\n", dest: /tmp/src.txt}
run:
  - {name: use-tmp, workdir: /tmp/build, shell: "cat /tmp/src.txt > /etc/copied; echo scratch > made-here"}
EOF
"$ROCKPACK" build ctx/tmp.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:tmp" >tmp.log 2>&1 || fail "/tmp build failed: $(cat tmp.log)"
umoci unpack --image "$WORK/img:tmp" tmpu >/dev/null
assert_eq "$(cat tmpu/rootfs/etc/copied)" "from-files" "a run: item sees a file files: put into /tmp"
[ ! -e tmpu/rootfs/tmp/build/made-here ] || fail "/tmp changes of a run: item stay out of the layer"
printf 'name: missing\nbase: oci:%s/img:base\nrun:\n  - {name: nothing, command: [/no/such/tool]}\n' "$WORK" >ctx/missing.yaml
rc=0; out=$("$ROCKPACK" build ctx/missing.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:missing" 2>&1) || rc=$?
assert_eq "$rc" "1" "a command that cannot start: exit code"
assert_contains "$out" "could not be started in the sandbox" "a command that cannot start: what failed"
assert_contains "$out" "/no/such/tool" "a command that cannot start: the runtime's reason"
if grep -q "exit code 125" <<<"$out"; then fail "a setup failure reported as exit code 125: $out"; fi

# Recipe mistakes at their file:line:column.
printf 'name: bad\nrun:\n  - shell: a\n    command: [b]\n  - {shell: x, netwrok: true}\n' >bad.yaml
rc=0; out=$("$ROCKPACK" validate bad.yaml 2>&1) || rc=$?
assert_eq "$rc" "2" "bad run items: exit code"
assert_contains "$out" "both shell: and command:" "shell and command together"
assert_contains "$out" "bad.yaml:5" "an unknown key at its line"
echo "test_run: all checks passed"
