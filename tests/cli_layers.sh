#!/usr/bin/env bash
# cli_layers.sh -- the folders under src/ form a DAG in the documented layer
# order (docs/architecture.md, "Layers"): a file may include headers of its
# own folder and of the folders below it, never above.  Every
# `#include "dir/..."` (or <dir/...>) in src/**/*.c and src/**/*.h is checked;
# an edge against the order fails, naming file:line and both layers.  A new
# folder under src/ fails until it is given a place in LAYERS.
# include/clustersim/ (the public header) may be included by anything.
. "$(dirname "$0")/lib_cli.sh"
: "${CS_SOURCE_DIR:?}"
SRC=${CS_LAYERS_SRC:-$CS_SOURCE_DIR/src}

# Top to bottom.
LAYERS="cli sweep output scenario cost gen config workload system compute memory network topology core"

# Edges tolerated until the file is changed, each as "file:include" (file
# from src/, the include exactly as written).  Remove an entry when its file
# is fixed; keep this list empty otherwise.
ALLOW=""

rank() { # rank LAYER -> index (0 = top), or nothing when unknown
    local i=0 l
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo "$i"; return; }
        i=$((i + 1))
    done
}

# Every folder under src/ must have a place in the order.
for d in "$SRC"/*/; do
    d=$(basename "$d")
    [ -n "$(rank "$d")" ] || fail "src/$d/ is not in the layer order (add it to LAYERS here and to docs/architecture.md)"
done

bad=0
edges=0
while IFS=: read -r file line inc; do
    rel=${file#"$SRC"/}
    from=${rel%%/*}
    case $inc in */*) to=${inc%%/*} ;; *) to=$from ;; esac
    [ "$to" = clustersim ] && continue
    rf=$(rank "$from"); rt=$(rank "$to")
    [ -n "$rt" ] || continue # <stdio.h>, <sys/...>, generated headers: not a layer
    edges=$((edges + 1))
    [ -n "$rf" ] || continue # reported above
    if [ "$rt" -lt "$rf" ]; then
        case " $ALLOW " in *" $rel:$inc "*) continue ;; esac
        fail "src/$rel:$line: $from includes $inc, but $to is above $from (order: $LAYERS)"
        bad=$((bad + 1))
    fi
done < <(find "$SRC" -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z |
         xargs -0 grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][^">]*[">]' |
         sed -E 's/^([^:]*):([0-9]+):.*include[[:space:]]*["<]([^">]*)[">].*/\1:\2:\3/')

# An entry whose include is gone is stale: remove it so that the list stays exact.
for a in $ALLOW; do
    f=${a%%:*}; i=${a#*:}
    grep -qE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]$i[\">]" "$SRC/$f" 2>/dev/null ||
        fail "allow-list entry $a is stale (src/$f no longer includes $i): remove it"
done

[ "$edges" -gt 100 ] || fail "only $edges includes between layers found: is $SRC the source tree?"
[ "$bad" -eq 0 ] && pass "$edges includes, none against the order $LAYERS"
finish
