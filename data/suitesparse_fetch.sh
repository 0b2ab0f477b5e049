#!/usr/bin/env bash
# Downloads SuiteSparse matrices into data/suitesparse/<Name>/<Name>.mtx.
#
#   bash data/suitesparse_fetch.sh                  # the ten matrices of the ReACT evaluation
#   bash data/suitesparse_fetch.sh HB/bcsstk17 ...  # any Group/Name of the collection
#
# Each archive <base>/<Group>/<Name>.tar.gz is verified (it lists <Name>/<Name>.mtx, and that file
# starts with a Matrix Market banner) and unpacked; matrices already there are skipped.
# Environment:
#   SUITESPARSE_URL   base URLs to try in order, space separated
#                     (default: https://sparse.tamu.edu/MM and its herokuapp mirror)
#   SUITESPARSE_DIR   where to unpack (default: data/suitesparse beside this script)
#   SUITESPARSE_MAX_TIME  seconds one download may take (default 1800)
# Exit status: 0 when every matrix is there, 1 otherwise (each failure is named on stderr).
set -u

REACT_MATRICES=(
  HB/bcsstk17 Williams/pdb1HYS Bova/rma10 Williams/cant Williams/consph
  Williams/cop20k_A DNVS/shipsec1 Hamm/scircuit Williams/mac_econ_fwd500 Boeing/pwtk
)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dest=${SUITESPARSE_DIR:-$here/suitesparse}
bases=${SUITESPARSE_URL:-"https://sparse.tamu.edu/MM https://suitesparse-collection-website.herokuapp.com/MM"}
max_time=${SUITESPARSE_MAX_TIME:-1800}

if [ $# -gt 0 ]; then matrices=("$@"); else matrices=("${REACT_MATRICES[@]}"); fi

# download URL FILE: curl or wget, failing fast when nothing answers. Returns 2 when the server
# could not be reached at all (name resolution, connection refused or timed out), 1 otherwise.
download() {
  local rc
  if command -v curl >/dev/null 2>&1; then
    curl --fail --silent --show-error --location --connect-timeout 10 --max-time "$max_time" -o "$2" "$1" 2>&1
    rc=$?
    case $rc in 0) return 0 ;; 5 | 6 | 7 | 28) return 2 ;; *) return 1 ;; esac
  elif command -v wget >/dev/null 2>&1; then
    wget --quiet --tries=1 --connect-timeout=10 --read-timeout=60 --timeout="$max_time" -O "$2" "$1" 2>&1
    rc=$?
    case $rc in 0) return 0 ;; 4) return 2 ;; *) return 1 ;; esac
  else
    echo "neither curl nor wget is installed"
    return 1
  fi
}

# has_banner FILE: the first line is a Matrix Market banner.
has_banner() {
  head -n 1 "$1" 2>/dev/null | grep -qi '^%%MatrixMarket matrix '
}

# fetch Group/Name: prints what went wrong and returns 1 on failure, 2 when no server answered.
fetch() {
  local spec=$1 group name archive mtx errors="" base url msg rc unreachable=2
  group=${spec%%/*}
  name=${spec#*/}
  mtx=$dest/$name/$name.mtx
  if [ -f "$mtx" ] && has_banner "$mtx"; then
    echo "$spec: already in $mtx"
    return 0
  fi
  mkdir -p "$dest" || { echo "suitesparse_fetch: cannot create $dest" >&2; return 1; }
  archive=$(mktemp "$dest/.$name.XXXXXX.tar.gz")
  for base in $bases; do
    url=${base%/}/$group/$name.tar.gz
    echo "$spec: downloading $url"
    msg=$(download "$url" "$archive")
    rc=$?
    if [ $rc -ne 0 ]; then
      errors+="  $url: ${msg:-download failed}"$'\n'
      [ $rc -eq 2 ] || unreachable=1
      continue
    fi
    unreachable=1
    if ! tar -tzf "$archive" 2>/dev/null | grep -qx "$name/$name.mtx"; then
      errors+="  $url: the archive does not contain $name/$name.mtx"$'\n'
      continue
    fi
    if ! tar -xzf "$archive" -C "$dest" "$name/$name.mtx" || ! has_banner "$mtx"; then
      errors+="  $url: $name/$name.mtx has no Matrix Market banner"$'\n'
      rm -f "$mtx"
      rmdir "$dest/$name" 2>/dev/null
      continue
    fi
    rm -f "$archive"
    echo "$spec: $mtx"
    return 0
  done
  rm -f "$archive"
  if [ $unreachable -eq 2 ]; then
    printf 'suitesparse_fetch: cannot fetch %s: no server answered (no network?):\n%s' "$spec" "$errors" >&2
  else
    printf 'suitesparse_fetch: cannot fetch %s:\n%s' "$spec" "$errors" >&2
  fi
  return $unreachable
}

for spec in "${matrices[@]}"; do
  if ! [[ "$spec" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
    echo "suitesparse_fetch: '$spec': expected Group/Name (e.g. HB/bcsstk17)" >&2
    exit 1
  fi
done

failed=()
for ((n = 0; n < ${#matrices[@]}; ++n)); do
  spec=${matrices[n]}
  fetch "$spec"
  rc=$?
  [ $rc -eq 0 ] && continue
  failed+=("$spec")
  if [ $rc -eq 2 ] && [ $((n + 1)) -lt ${#matrices[@]} ]; then
    echo "suitesparse_fetch: no network: not trying the other $((${#matrices[@]} - n - 1))" >&2
    failed+=("${matrices[@]:n+1}")
    break
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "suitesparse_fetch: ${#failed[@]} of ${#matrices[@]} matrices missing: ${failed[*]}" >&2
  echo "suitesparse_fetch: set SUITESPARSE_URL to a reachable mirror, or copy <Name>/<Name>.mtx into $dest" >&2
  exit 1
fi
echo "suitesparse_fetch: ${#matrices[@]} matrices in $dest (react-bench --matrix $dest)"
