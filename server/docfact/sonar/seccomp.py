"""The sandbox's system-call filter: a classic BPF program for bubblewrap's ``--seccomp``.

It refuses (EPERM) the few calls a jailed program could use to reach past its run:

- the kernel keyrings (``add_key``, ``request_key``, ``keyctl``): they are not
  namespaced, so as root every run would share the ``nobody`` user's keyring, and a key one
  run leaves would be read by the next;
- a new user namespace (``unshare`` or ``clone`` with CLONE_NEWUSER): as root the jail has
  no user namespace of its own, and inside a fresh one the program would be "root" again,
  able to mount a tmpfs of no size;
- ``ptrace``: the watcher that reports the exit status must not be steered;
- the kernel's riskiest interfaces, which no program under test needs: io_uring (its
  operations pass no system-call filter, and it has been the door of many kernel
  exploits; enabled for everyone on most machines), ``userfaultfd`` (used to widen kernel
  races), ``perf_event_open`` (profiling: side channels) and ``bpf``;
- ``clone3`` answers ENOSYS (its flags are in memory a filter cannot read; the C library
  then falls back to ``clone``, whose flags it can);
- every call of another ABI (32-bit or x32 on x86-64), whose numbers differ.

Only the two architectures below have a filter; elsewhere ``program()`` is None and the
sandbox says so in its docs (the other walls still hold).
"""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass

# struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 * i (low half first: both
# architectures below are little-endian).
NR, ARCH, ARG0 = 0, 4, 16
LOAD = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RETURN = 0x06  # BPF_RET | BPF_K
ALLOW = 0x7FFF0000
ERRNO = 0x00050000
CLONE_NEWUSER = 0x10000000
X32_BIT = 0x40000000


@dataclass(frozen=True)
class Calls:
    """An architecture's audit number and the numbers of the calls the filter looks at."""

    arch: int
    # add_key, request_key, keyctl, ptrace; io_uring_setup, _enter, _register,
    # userfaultfd, perf_event_open, bpf
    refused: tuple[int, ...]
    namespaced: tuple[int, ...]  # clone, unshare
    clone3: int
    x32: bool = False  # x86-64's second ABI: its numbers have X32_BIT set


ARCHITECTURES = {
    "x86_64": Calls(
        0xC000003E, (248, 249, 250, 101, 425, 426, 427, 323, 298, 321), (56, 272), 435, x32=True
    ),
    "aarch64": Calls(
        0xC00000B7, (217, 218, 219, 117, 425, 426, 427, 282, 241, 280), (220, 97), 435
    ),
}


def _op(code: int, k: int, true: int = 0, false: int = 0) -> bytes:
    return struct.pack("=HBBI", code, true, false, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine (``os.uname().machine``), or None where there is none."""
    calls = ARCHITECTURES.get(machine or os.uname().machine)
    if calls is None:
        return None
    refuse = _op(RETURN, ERRNO | errno.EPERM)
    ops = [_op(LOAD, ARCH), _op(JEQ, calls.arch, 1, 0), refuse, _op(LOAD, NR)]
    if calls.x32:
        ops += [_op(JSET, X32_BIT, 0, 1), refuse]
    for number in calls.refused:
        ops += [_op(JEQ, number, 0, 1), refuse]
    ops += [_op(JEQ, calls.clone3, 0, 1), _op(RETURN, ERRNO | errno.ENOSYS)]
    for number in calls.namespaced:
        # if nr == number: (if flags & CLONE_NEWUSER: refuse) and reload nr
        ops += [
            _op(JEQ, number, 0, 4),
            _op(LOAD, ARG0),
            _op(JSET, CLONE_NEWUSER, 0, 1),
            refuse,
            _op(LOAD, NR),
        ]
    ops.append(_op(RETURN, ALLOW))
    return b"".join(ops)
