# shellcheck shell=bash
# Shared by the benchmarks (sourced): one binary package of another Debian release, verified the way
# apt verifies it, unpacked into a cache directory.

# debian_mirror: the Debian archive this machine's apt uses (the first `deb` source of the main
# archive in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list, not the security one);
# ROCKPACK_BENCH_DEBIAN_MIRROR overrides it.
debian_mirror() {
  if [ -n "${ROCKPACK_BENCH_DEBIAN_MIRROR:-}" ]; then echo "$ROCKPACK_BENCH_DEBIAN_MIRROR"; return; fi
  python3 - <<'P'
import glob, re, sys
uris = []
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for stanza in re.split(r"\n\s*\n", open(path).read()):
        fields = dict(re.findall(r"^([A-Za-z-]+):[ \t]*(.*)$", stanza, re.M))
        if "deb" in fields.get("Types", "").split() and "main" in fields.get("Components", "").split():
            uris += fields.get("URIs", "").split()
try:
    for line in open("/etc/apt/sources.list"):
        parts = line.split()
        if parts[:1] == ["deb"]:
            uris.append(next(p for p in parts[1:] if not p.startswith("[")))
except OSError:
    pass
uris = [u.rstrip("/") for u in uris if "security" not in u]
if not uris:
    sys.exit("no Debian archive in /etc/apt/sources.list(.d); set ROCKPACK_BENCH_DEBIAN_MIRROR")
print(uris[0])
P
}

# debian_deb_fetch SUITE PACKAGE CACHE: PACKAGE's .deb from SUITE's main component for this
# machine's architecture, unpacked (dpkg-deb -x) into CACHE/PACKAGE-SUITE-VERSION, whose path it
# prints. Every byte is checked before it is used: the suite's InRelease against Debian's archive
# keyring (gpgv; the hashes are read from the signed text gpgv writes out, never from the file as
# downloaded), the Packages.xz against the InRelease's SHA256, the .deb against the Packages' SHA256.
# A second call finds the unpacked tree and downloads nothing.
debian_deb_fetch() {
  local suite=$1 pkg=$2 cache=$3 mirror arch tmp
  mirror=$(debian_mirror) || return 1
  arch=$(dpkg --print-architecture)
  tmp=$(mktemp -d "$cache/.debian-deb-XXXXXX")
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  curl -fsS -o "$tmp/InRelease" "$mirror/dists/$suite/InRelease" ||
    { echo "debian_deb: cannot download $mirror/dists/$suite/InRelease" >&2; rm -rf "$tmp"; return 1; }
  gpgv --quiet --keyring "$keyring" --output "$tmp/Release" "$tmp/InRelease" 2>"$tmp/gpgv.log" || {
    echo "debian_deb: $suite's InRelease is not signed by a key in $keyring: $(tail -2 "$tmp/gpgv.log")" >&2
    rm -rf "$tmp"; return 1
  }
  local want
  want=$(awk -v f="main/binary-$arch/Packages.xz" '/^[A-Za-z]/ {s = ($1 == "SHA256:")} s && $3 == f {print $1}' "$tmp/Release")
  [ -n "$want" ] || { echo "debian_deb: $suite's Release lists no main/binary-$arch/Packages.xz" >&2; rm -rf "$tmp"; return 1; }
  curl -fsS -o "$tmp/Packages.xz" "$mirror/dists/$suite/main/binary-$arch/Packages.xz" ||
    { echo "debian_deb: cannot download $suite's Packages.xz" >&2; rm -rf "$tmp"; return 1; }
  echo "$want  $tmp/Packages.xz" | sha256sum --quiet -c - ||
    { echo "debian_deb: $suite's Packages.xz does not match its signed SHA256" >&2; rm -rf "$tmp"; return 1; }
  local version filename sha
  read -r version filename sha < <(xz -dc "$tmp/Packages.xz" | awk -v p="$pkg" '
    /^Package: / {inp = ($2 == p)} inp && /^Version: / {v = $2} inp && /^Filename: / {f = $2}
    inp && /^SHA256: / {s = $2} /^$/ && inp && f != "" {print v, f, s; exit}')
  [ -n "${sha:-}" ] || { echo "debian_deb: $suite has no package $pkg for $arch" >&2; rm -rf "$tmp"; return 1; }
  case "$filename" in pool/*) ;; *) echo "debian_deb: $pkg's Filename $filename is not under pool/" >&2; rm -rf "$tmp"; return 1 ;; esac
  local dest=$cache/$pkg-$suite-${version//[^A-Za-z0-9.+-]/_}
  if [ -d "$dest" ]; then rm -rf "$tmp"; echo "$dest"; return 0; fi
  echo "fetching $pkg $version from $suite (verified: InRelease, Packages.xz, .deb)..." >&2
  curl -fsS -o "$tmp/pkg.deb" "$mirror/$filename" ||
    { echo "debian_deb: cannot download $mirror/$filename" >&2; rm -rf "$tmp"; return 1; }
  echo "$sha  $tmp/pkg.deb" | sha256sum --quiet -c - ||
    { echo "debian_deb: $filename does not match the SHA256 in $suite's Packages" >&2; rm -rf "$tmp"; return 1; }
  dpkg-deb -x "$tmp/pkg.deb" "$tmp/tree"
  mv "$tmp/tree" "$dest"
  rm -rf "$tmp"
  echo "$dest"
}
