# shellcheck shell=bash disable=SC2154  # tool, bases, max_time: set by the script that sources this
# What data/suitesparse_fetch.sh and data/frostt_fetch.sh share: sourced by both, never run.
# The sourcing script sets `tool` (its name in messages), `bases` (base URLs to try in order) and
# `max_time` (seconds one download may take), and defines `fetch SPEC` (0: there; 1: failed; 2:
# no server answered).

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

# fetch_archive SPEC PATH ARCHIVE UNPACK: for each base URL until one works, downloads
# <base>/PATH into the file ARCHIVE and runs `UNPACK ARCHIVE`, which checks and unpacks it, or
# prints what is wrong with it and fails. ARCHIVE is removed either way. On failure prints every
# URL's error and returns 1, or 2 when no server answered.
fetch_archive() {
  # Names of their own: the unpack function sees these locals, and the caller's (name, tns, mtx).
  local spec=$1 archive_path=$2 archive=$3 unpack=$4 errors="" base url msg rc unreachable=2
  for base in $bases; do
    url=${base%/}/$archive_path
    echo "$spec: downloading $url"
    msg=$(download "$url" "$archive")
    rc=$?
    if [ $rc -ne 0 ]; then
      errors+="  $url: ${msg:-download failed}"$'\n'
      [ $rc -eq 2 ] || unreachable=1
      continue
    fi
    unreachable=1
    if ! msg=$("$unpack" "$archive"); then
      errors+="  $url: $msg"$'\n'
      continue
    fi
    rm -f "$archive"
    return 0
  done
  rm -f "$archive"
  if [ $unreachable -eq 2 ]; then
    printf '%s: cannot fetch %s: no server answered (no network?):\n%s' "$tool" "$spec" "$errors" >&2
  else
    printf '%s: cannot fetch %s:\n%s' "$tool" "$spec" "$errors" >&2
  fi
  return $unreachable
}

# fetch_each SPEC...: fetches each in turn; once no server answered, the rest are not tried.
# Sets `failed` to the specs not fetched.
fetch_each() {
  local specs=("$@") n rc
  failed=()
  for ((n = 0; n < ${#specs[@]}; ++n)); do
    fetch "${specs[n]}"
    rc=$?
    [ $rc -eq 0 ] && continue
    failed+=("${specs[n]}")
    if [ $rc -eq 2 ] && [ $((n + 1)) -lt ${#specs[@]} ]; then
      echo "$tool: no network: not trying the other $((${#specs[@]} - n - 1))" >&2
      failed+=("${specs[@]:n+1}")
      break
    fi
  done
}
