"""The dynamics server's memory under world create / destroy cycles from several clients at
once (what made it creep in the soak: docs/benchmarks.md).

Each world a client makes is built, stepped and freed on omniORB's request threads. With
glibc's default of one malloc arena per thread (up to 8 per core), blocks freed by other
threads than the ones that made them fragmented the arenas: +0.19 MiB a minute under the
soak's 8 clients, +0.10 MiB a minute under world cycles alone from 2 clients, never levelling
off in 10 minutes. The server now allocates from one arena, and maps blocks of 128 KiB and
more on their own (useOneMallocArena in server/common/runtime.h); these tests check the
first, and that the worlds themselves are freed:

- after 3 client processes made and destroyed 1500 worlds at once, the server has no malloc
  arena but the main one (a glibc arena is an anonymous mapping of 64 MiB reserved at a
  64 MiB boundary; with an arena per thread each request thread of the 3 connections got its
  own: 4 such mappings, 3.7 MiB resident, in the experiment that found the creep);
- the server's heap (the main arena plus any arenas, resident) after another 1500 worlds is
  within 1 MiB of what it was after the first 1500: a world is over 0.5 MiB (its contact
  buffers alone), so one in a thousand left behind fails this.

Under test.sh's sanitizer stage the server allocates from ASan's allocator, not glibc's: there
are no glibc arenas, and its heap holds ASan's quarantine of freed blocks (up to 256 MiB, still
filling after 3000 worlds), so only the cycles are run there (for use-after-free and races;
worlds left behind are LeakSanitizer's to find when the server exits).
"""

import multiprocessing
import sys

import pytest

from hrpsim import loadtest

HEAP_MAX = 64 << 20    # glibc's HEAP_MAX_SIZE on 64-bit: the reservation of a non-main arena
CLIENTS, WORLDS = 3, 500


def arenas(pid):
    """The glibc arenas besides the main one: (start, resident KiB) of every anonymous region
    that starts at a 64 MiB boundary and, with the PROT_NONE rest of its reservation right
    after it, spans exactly 64 MiB."""
    regions = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            regions.append((lo, hi, parts[1], len(parts) < 6))
    found = []
    for i, (lo, hi, perms, anon) in enumerate(regions):
        if not anon or lo % HEAP_MAX or not perms.startswith("rw"):
            continue
        end = hi
        if i + 1 < len(regions) and regions[i + 1][0] == hi and regions[i + 1][2] == "---p":
            end = regions[i + 1][1]
        if end - lo == HEAP_MAX:
            found.append(lo)
    return found


def heap_kib(pid):
    """Resident KiB of the process's malloc memory: [heap] and anonymous mappings."""
    total, counting = 0, False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and len(parts) >= 5 and ":" in parts[3]:
                counting = len(parts) < 6 or parts[5] == "[heap]"
            elif parts[0] == "Rss:" and counting:
                total += int(parts[1])
    return total


def under_asan(pid):
    """Whether the process runs with ASan's allocator (its runtime mapped)."""
    with open("/proc/%d/maps" % pid) as f:
        return any("libasan" in line for line in f)


def cycles(naming):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(CLIENTS) as pool:
        done = pool.starmap(loadtest.cycle_worlds, [(naming, WORLDS)] * CLIENTS)
    assert done == [WORLDS] * CLIENTS


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_world_cycles_from_several_clients_use_one_arena_and_free_their_worlds(servers):
    if not servers.has("DynamicsSimulatorFactory"):
        pytest.fail("the dynamics server was not started", pytrace=False)
    pid = servers.pid("DynamicsSimulatorFactory")
    cycles(servers.corbaloc)
    if under_asan(pid):
        cycles(servers.corbaloc)
        pytest.skip("ASan's allocator: glibc's arenas and heap are not used (cycles run)")
    first = heap_kib(pid)
    assert arenas(pid) == [], "malloc arenas besides the main one: %s" % arenas(pid)
    cycles(servers.corbaloc)
    assert arenas(pid) == []
    assert heap_kib(pid) - first < 1024, (first, heap_kib(pid))
