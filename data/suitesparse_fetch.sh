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
tool=suitesparse_fetch
# shellcheck source=data/fetch_common.sh
source "$here/fetch_common.sh"

if [ $# -gt 0 ]; then matrices=("$@"); else matrices=("${REACT_MATRICES[@]}"); fi

# has_banner FILE: the first line is a Matrix Market banner.
has_banner() {
  head -n 1 "$1" 2>/dev/null | grep -qi '^%%MatrixMarket matrix '
}

# unpack_mtx ARCHIVE: <Name>/<Name>.mtx out of the archive into $dest, where it has a banner.
unpack_mtx() {
  if ! tar -tzf "$1" 2>/dev/null | grep -qx "$name/$name.mtx"; then
    echo "the archive does not contain $name/$name.mtx"
    return 1
  fi
  if ! tar -xzf "$1" -C "$dest" "$name/$name.mtx" || ! has_banner "$mtx"; then
    echo "$name/$name.mtx has no Matrix Market banner"
    rm -f "$mtx"
    rmdir "$dest/$name" 2>/dev/null
    return 1
  fi
}

# fetch Group/Name: prints what went wrong and returns 1 on failure, 2 when no server answered.
fetch() {
  local spec=$1 group name mtx
  group=${spec%%/*}
  name=${spec#*/}
  mtx=$dest/$name/$name.mtx
  if [ -f "$mtx" ] && has_banner "$mtx"; then
    echo "$spec: already in $mtx"
    return 0
  fi
  mkdir -p "$dest" || { echo "$tool: cannot create $dest" >&2; return 1; }
  fetch_archive "$spec" "$group/$name.tar.gz" "$(mktemp "$dest/.$name.XXXXXX.tar.gz")" unpack_mtx || return
  echo "$spec: $mtx"
}

for spec in "${matrices[@]}"; do
  if ! [[ "$spec" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
    echo "suitesparse_fetch: '$spec': expected Group/Name (e.g. HB/bcsstk17)" >&2
    exit 1
  fi
done

fetch_each "${matrices[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "suitesparse_fetch: ${#failed[@]} of ${#matrices[@]} matrices missing: ${failed[*]}" >&2
  echo "suitesparse_fetch: set SUITESPARSE_URL to a reachable mirror, or copy <Name>/<Name>.mtx into $dest" >&2
  exit 1
fi
echo "suitesparse_fetch: ${#matrices[@]} matrices in $dest (react-bench --matrix $dest)"
