#!/bin/sh
# Rebuilds the two committed expectation tables from Debian's OpenPMIx 4.2.2 (package libpmix2,
# /usr/lib/x86_64-linux-gnu/pmix2). Run it only to refresh them on purpose; review the diff.
#   debian_strings.tsv    - compare_with_debian.c (reference build) over Debian's attribute list
#   debian_dictionary.tsv - compare_with_debian.c --dictionary, plus a deprecated column taken from
#                           which Debian header declares the name
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../../.." && pwd)
deb=/usr/lib/x86_64-linux-gnu/pmix2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -std=gnu11 -DPMIX_PROBE_DEBIAN -isystem "$deb/include" "$here/compare_with_debian.c" \
   -o "$tmp/probe" "$deb/lib/libpmix.so.2" -Wl,-rpath,"$deb/lib"
cmake -DPMIX_ATTR_HEADERS="$deb/include/pmix_common.h|$deb/include/pmix_deprecated.h" \
      -DPMIX_ATTR_OUT_CPP="$tmp/attributes.cpp" -DPMIX_ATTR_OUT_TSV="$tmp/attributes.tsv" \
      -P "$src/core/text/attributes.cmake"

{
  echo "# Produced by tests/unit/core/text/regenerate_expectations.sh: compare_with_debian.c built"
  echo "# against and linked to Debian's OpenPMIx 4.2.2 ($deb), attribute list from Debian's headers."
  echo "# function<TAB>input<TAB>output; \"=input\" = the argument pointer itself was returned."
  "$tmp/probe" "$tmp/attributes.tsv"
} > "$here/debian_strings.tsv"

{
  echo "# Produced by tests/unit/core/text/regenerate_expectations.sh: OpenPMIx 4.2.2's internal"
  echo "# attribute dictionary (pmix_dictionary in Debian's libpmix.so.2), in its order."
  echo "# name<TAB>key<TAB>type number<TAB>type name<TAB>deprecated (declared in pmix_deprecated.h)"
  "$tmp/probe" --dictionary |
    awk -F'\t' -v OFS='\t' 'NR == FNR { dep[$1] = $5; next } { print $0, dep[$1] + 0 }' \
        "$tmp/attributes.tsv" -
} > "$here/debian_dictionary.tsv"

wc -l "$here/debian_strings.tsv" "$here/debian_dictionary.tsv"
