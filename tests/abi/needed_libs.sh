#!/bin/sh
# libpmix's DT_NEEDED must be libc (and the dynamic loader) only: every rank pays for what the
# library loads. libhwloc and zlib are opened on first use by capi/lazy_libs.cpp; a function of
# theirs called without a forwarder there would silently bring the library back (--as-needed links
# it from the core libraries' link line), and this fails then.
# usage: needed_libs.sh LIBPMIX OBJDUMP
lib=$1
objdump=${2:-objdump}
needed=$("$objdump" -p "$lib" | awk '$1 == "NEEDED" { print $2 }' | sort | tr '\n' ' ')
echo "NEEDED: $needed"
for name in $needed; do
    case $name in
    libc.so.* | ld-linux*.so.*) ;;
    *)
        echo "FAIL: $lib needs $name (capi/README.md: libpmix loads libc alone; hwloc or zlib functions go through capi/lazy_libs.cpp)"
        exit 1
        ;;
    esac
done
[ -n "$needed" ] || { echo "FAIL: no NEEDED entries read from $lib"; exit 1; }
echo "PASS"
