"""loaded_libpmix.py import|PATH OURS DEBIAN: loads libpmix the way python3-pmix does ("import":
`import pmix`, whose extension needs libpmix.so.2) or the way Slurm's mpi/pmix plugin does (PATH:
dlopen() of a fixed path), then says which library that is, by comparing the bytes of the mapped
file (/proc/self/map_files, root only) with OURS and DEBIAN, as loaded_libpmix.c does for MPI."""
import ctypes
import filecmp
import os
import sys


def mapped_libpmix():
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and "/libpmix.so" in fields[5]:
                return fields[5], "/proc/self/map_files/" + fields[0]
    return None, None


def main():
    how, ours, debian = sys.argv[1:4]
    if how == "import":
        import pmix  # noqa: F401  (python3-pmix: its extension is linked to libpmix.so.2)
        lib = ctypes.CDLL("libpmix.so.2", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    else:
        lib = ctypes.CDLL(how, mode=os.RTLD_GLOBAL | os.RTLD_LAZY)
    path, mapped = mapped_libpmix()
    if path is None:
        print(f"{how}: no libpmix mapped")
        return 1
    which = "neither"
    for name, ref in (("ours", ours), ("debian", debian)):
        if filecmp.cmp(mapped, ref, shallow=False):
            which = name
            break
    lib.PMIx_Get_version.restype = ctypes.c_char_p
    print(f"{how}: {path} is {which}")
    print(f"{how}: PMIx_Get_version: {lib.PMIx_Get_version().decode()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
