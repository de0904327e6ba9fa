# shellcheck shell=bash
# A small base image that looks like Debian 12 with python3.11 to rockpack's python step: the files
# it reads the interpreter's facts from (sysconfigdata, os.py, a libc with its GLIBC versions) and
# nothing that runs. For tests of resolution, locking and digests that need no working Python and
# no Debian mirror. Source after common.sh.
#   fake_python_base DIR      writes the OCI layout DIR (tag base), built by rockpack from scratch
#   fake_python_root DIR VERSION  writes only the file tree, for CPython VERSION (3.11, 3.12, ...)
# x86_64 only: the sysconfigdata names x86_64-linux-gnu (callers skip elsewhere).
fake_python_base() {
  local out=$1 root="$WORK/fake-python-root"
  mkdir -p "$root/usr/bin" "$root/usr/lib/python3.11" "$root/usr/lib/x86_64-linux-gnu"
  ln -sfn usr/lib "$root/lib"
  ln -sfn usr/bin "$root/bin"
  printf '\177ELF python' >"$root/usr/bin/python3.11"
  chmod 0755 "$root/usr/bin/python3.11"
  ln -sfn python3.11 "$root/usr/bin/python3"
  printf '# os\n' >"$root/usr/lib/python3.11/os.py"
  cat >"$root/usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py" <<'PY'
build_time_vars = {'ABIFLAGS': '',
 'BINDIR': '/usr/bin',
 'INCLUDEPY': '/usr/include/python3.11',
 'LIBDIR': '/usr/lib/x86_64-linux-gnu',
 'MULTIARCH': 'x86_64-linux-gnu',
 'Py_DEBUG': 0,
 'Py_ENABLE_SHARED': 0,
 'SIZEOF_LONG': 8,
 'SOABI': 'cpython-311-x86_64-linux-gnu',
 'VERSION': '3.11',
 'exec_prefix': '/usr',
 'prefix': '/usr'}
PY
  python3 - "$root/usr/lib/x86_64-linux-gnu/libc.so.6" <<'PY'
import sys
data = b"\x7fELF" + b"\0" * 100 + b"GLIBC_2.2.5" + b"\0" * 3 + b"GLIBC_2.34\0"
data += b"GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n" + b"\0" * 50
open(sys.argv[1], "wb").write(data)
PY
  chmod 0755 "$root/usr/lib/x86_64-linux-gnu/libc.so.6"
  cat >"$WORK/fake-python-base.yaml" <<RECIPE
name: fake-python
platform: linux/amd64
files:
  - src: fake-python-root
    dest: /
env:
  PATH: /usr/local/bin:/usr/bin:/bin
RECIPE
  SOURCE_DATE_EPOCH=0 "$ROCKPACK" --quiet build "$WORK/fake-python-base.yaml" -o "oci:$out:base" \
    --cache-dir "$WORK/fake-python-store" >"$WORK/fake-python-base.log" 2>&1 \
    || fail "building the fake python base failed: $(cat "$WORK/fake-python-base.log")"
}

fake_python_root() {
  local root=$1 v=$2
  mkdir -p "$root/usr/bin" "$root/usr/lib/python$v" "$root/usr/lib/x86_64-linux-gnu"
  ln -sfn usr/lib "$root/lib"; ln -sfn usr/bin "$root/bin"
  printf '\177ELF python' >"$root/usr/bin/python$v"; chmod 0755 "$root/usr/bin/python$v"
  ln -sfn "python$v" "$root/usr/bin/python3"
  printf '# os\n' >"$root/usr/lib/python$v/os.py"
  cat >"$root/usr/lib/python$v/_sysconfigdata__x86_64-linux-gnu.py" <<PY
build_time_vars = {'ABIFLAGS': '', 'BINDIR': '/usr/bin', 'INCLUDEPY': '/usr/include/python$v',
 'LIBDIR': '/usr/lib/x86_64-linux-gnu', 'MULTIARCH': 'x86_64-linux-gnu', 'Py_DEBUG': 0, 'Py_ENABLE_SHARED': 0,
 'SIZEOF_LONG': 8, 'SOABI': 'cpython-${v/./}-x86_64-linux-gnu', 'VERSION': '$v', 'exec_prefix': '/usr', 'prefix': '/usr'}
PY
  python3 - "$root/usr/lib/x86_64-linux-gnu/libc.so.6" <<'PY'
import sys
data = b"\x7fELF" + b"\0" * 100 + b"GLIBC_2.2.5" + b"\0" * 3 + b"GLIBC_2.34\0"
data += b"GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n" + b"\0" * 50
open(sys.argv[1], "wb").write(data)
PY
  chmod 0755 "$root/usr/lib/x86_64-linux-gnu/libc.so.6"
}
