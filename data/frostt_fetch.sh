#!/usr/bin/env bash
# Downloads FROSTT tensors (frostt.io) into data/frostt/<name>.tns, for users with a network.
# Tensor data is never committed (.gitignore).
#
#   bash data/frostt_fetch.sh                    # the 3-tensors react-bench runs mttkrp and ttm on
#   bash data/frostt_fetch.sh nell-1 enron ...   # any tensor named below
#   bash data/frostt_fetch.sh nell/nell-1        # any <folder>/<file> of the collection (no .tns.gz)
#
# Each <base>/<folder>/<file>.tns.gz is verified (gzip's check; its first entry is 1-based
# coordinates and a value) and unpacked; tensors already there are skipped. The files are large
# (nell-2 holds 77 million entries, amazon-reviews 1.7 billion): the sizes below are frostt.io's.
# Environment:
#   FROSTT_URL       base URLs to try in order, space separated
#                    (default: https://s3.us-east-2.amazonaws.com/frostt/frostt_data)
#   FROSTT_DIR       where to unpack (default: data/frostt beside this script)
#   FROSTT_MAX_TIME  seconds one download may take (default 3600)
# Exit status: 0 when every tensor is there, 1 otherwise (each failure is named on stderr).
set -u

# name -> <folder>/<file> under the base URL (rank, dimensions and entries from frostt.io).
declare -A FROSTT_PATHS=(
  [nell-2]=nell/nell-2                                  # 3: 12092 x 9184 x 28818, 77M
  [nell-1]=nell/nell-1                                  # 3: 2.9M x 2.1M x 25.5M, 143M
  [vast-2015-mc1-3d]=vast-2015-mc1/vast-2015-mc1-3d     # 3: 165427 x 11374 x 2, 26M
  [flickr-3d]=flickr/flickr-3d                          # 3: 320K x 28M x 1.6M, 113M
  [delicious-3d]=delicious/delicious-3d                 # 3: 533K x 17M x 2.5M, 140M
  [amazon-reviews]=amazon/amazon-reviews                # 3: 4.8M x 1.8M x 1.8M, 1.7G
  [patents]=patents/patents                             # 3: 46 x 240K x 240K, 3.6G
  [nips]=nips/nips                                      # 4: 2482 x 2862 x 14036 x 17, 3.1M
  [uber]=uber-pickups/uber                              # 4: 183 x 24 x 1140 x 1717, 3.3M
  [chicago-crime]=chicago-crime/comm/chicago-crime-comm # 4: 6186 x 24 x 77 x 32, 5.3M
  [enron]=enron/enron                                   # 4: 6066 x 5699 x 244268 x 1176, 54M
  [lbnl-network]=lbnl-network/lbnl-network              # 5: 1605 x 4198 x 1631 x 4209 x 868131, 1.7M
)
REACT_TENSORS=(vast-2015-mc1-3d nell-2)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dest=${FROSTT_DIR:-$here/frostt}
bases=${FROSTT_URL:-"https://s3.us-east-2.amazonaws.com/frostt/frostt_data"}
max_time=${FROSTT_MAX_TIME:-3600}
tool=frostt_fetch
# shellcheck source=data/fetch_common.sh
source "$here/fetch_common.sh"

if [ $# -gt 0 ]; then tensors=("$@"); else tensors=("${REACT_TENSORS[@]}"); fi

# looks_like_tns FILE: its first line that is neither blank nor a '#' comment holds positive
# integer coordinates and a value (react's reader checks every line when it loads the file).
looks_like_tns() {
  grep -v -m 1 -E '^[[:space:]]*(#|$)' "$1" 2>/dev/null |
    grep -q -E '^[[:space:]]*([1-9][0-9]*[[:space:]]+)+[-+0-9.eEinfa]+[[:space:]]*$'
}

# unpack_tns ARCHIVE: the gzipped tensor into $tns, where its first entry reads as one.
unpack_tns() {
  if ! gzip -t "$1" 2>/dev/null; then
    echo "not a complete gzip file"
    return 1
  fi
  if ! gzip -dc "$1" >"$tns.tmp" || ! looks_like_tns "$tns.tmp"; then
    echo "$name.tns does not start with an entry (1-based coordinates and a value)"
    rm -f "$tns.tmp"
    return 1
  fi
  mv "$tns.tmp" "$tns"
}

# fetch NAME: prints what went wrong and returns 1 on failure, 2 when no server answered.
fetch() {
  local spec=$1 path name tns
  if [ -n "${FROSTT_PATHS[$spec]+set}" ]; then
    path=${FROSTT_PATHS[$spec]}
    name=$spec
  else
    path=$spec
    name=${spec##*/}
  fi
  tns=$dest/$name.tns
  if [ -f "$tns" ] && looks_like_tns "$tns"; then
    echo "$spec: already in $tns"
    return 0
  fi
  mkdir -p "$dest" || { echo "$tool: cannot create $dest" >&2; return 1; }
  fetch_archive "$spec" "$path.tns.gz" "$(mktemp "$dest/.$name.XXXXXX.tns.gz")" unpack_tns || return
  echo "$spec: $tns"
}

for spec in "${tensors[@]}"; do
  if [ -z "${FROSTT_PATHS[$spec]+set}" ] && ! [[ "$spec" =~ ^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$ ]]; then
    names=$(printf '%s\n' "${!FROSTT_PATHS[@]}" | sort | paste -sd ' ')
    echo "frostt_fetch: '$spec': expected one of $names, or <folder>/<file> (e.g. nell/nell-2)" >&2
    exit 1
  fi
done

fetch_each "${tensors[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "frostt_fetch: ${#failed[@]} of ${#tensors[@]} tensors missing: ${failed[*]}" >&2
  echo "frostt_fetch: set FROSTT_URL to a reachable mirror, or copy <name>.tns into $dest" >&2
  exit 1
fi
echo "frostt_fetch: ${#tensors[@]} tensors in $dest"
