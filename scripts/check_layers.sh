#!/usr/bin/env bash
# Fails when a folder of common/ includes a folder above it (common/README.md
# gives the order), or when common/, config/ or report/ include a role or cmd/.
# Run by ctest (check_layers) and by hand: scripts/check_layers.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
# Lower rank = lower layer; a file may include only its own rank or below.
rank() {
  case "$1" in
    common/base) echo 0 ;; common/io) echo 1 ;; common/storage) echo 2 ;; common/net) echo 3 ;;
    common/sampling) echo 4 ;; common/client) echo 5 ;; config) echo 6 ;; report) echo 6 ;;
    *) echo 99 ;;
  esac
}
bad=0
for dir in common/base common/io common/storage common/net common/sampling common/client config report; do
  mine=$(rank "$dir")
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<< "${line#*:}")
    target=$(dirname "$inc")
    case "$target" in
      common/*|config|report) theirs=$(rank "$target") ;;
      roles/*|cmd|cmd/*) theirs=99 ;;
      *) continue ;;  # system and third-party headers
    esac
    if [ "$theirs" -gt "$mine" ]; then
      echo "layer violation: $file includes $inc ($dir may include only its own layer or below)"
      bad=1
    fi
  done < <(grep -Hn '^#include "' "$dir"/*.h "$dir"/*.cpp 2>/dev/null | cut -d: -f1,3-)
done
# common/net is the wire vocabulary, the codec and the transport: it speaks the
# value types of common/base and never includes common/storage (the answers
# that read a partition live in roles/server).
if grep -Hn '^#include "common/storage/' common/net/*.h common/net/*.cpp 2>/dev/null; then
  echo "layer violation: common/net includes common/storage (above)"
  bad=1
fi
# No file may sit directly in common/: every one belongs to a layer.
if compgen -G "common/*.cpp" > /dev/null || compgen -G "common/*.h" > /dev/null; then
  echo "layer violation: files directly in common/ (put them in a layer folder):" common/*.{h,cpp}
  bad=1
fi
[ "$bad" = 0 ] && echo "layers: ok"
exit "$bad"
