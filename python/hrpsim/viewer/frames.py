"""The wire format of frames between the viewer's server and its page, and the layout it uses.

A *layout* is the ordered list of characters the page draws; each character takes
``7 + links`` float32 numbers per frame: root position (3) [m, world], root orientation as a
quaternion (x, y, z, w), and one joint value per link in link order (0 for links without a
rotate or slide joint). The page poses every link from these by forward kinematics
(scene.Kinematics).

One binary message carries K consecutive frames (all little-endian)::

    u32 kind        1 = frames of the log, 2 = a frame shown but not logged (drawScene);
                    3 is kept for camera images (they come with the vision sensors: the
                    page's camera panel, web/src/cameras.js, has a tile per sensor waiting)
    u32 epoch       the log generation; a page drops what it holds when this changes
    u32 start       index of the first frame in the log
    u32 K           frames in this message
    u32 stride      float32 numbers per frame (sum of 7 + links over the layout)
    u32 C           contact points in this message
    f64 time[K]     simulated time [s]
    f32 pose[K * stride]
    u32 contacts[K] contact points per frame
    f32 contact[C * 7]  position (3) [m], normal (3), depth [m]
"""

import struct

import numpy as np

KIND_LOG = 1
KIND_TRANSIENT = 2
HEADER = struct.Struct("<6I")
CONTACT_WIDTH = 7


def stride(link_counts):
    """Float32 numbers per frame for characters with these link counts."""
    return sum(7 + int(n) for n in link_counts)


def encode(kind, epoch, start, times, poses, contact_counts=None, contacts=None):
    """One binary message: ``times`` (K,), ``poses`` (K, stride), ``contact_counts`` (K,)
    and ``contacts`` (C, 7) (both default to none)."""
    times = np.ascontiguousarray(times, dtype="<f8")
    k = times.shape[0]
    poses = np.ascontiguousarray(poses, dtype="<f4").reshape(k, -1)
    if contact_counts is None:
        contact_counts = np.zeros(k, dtype="<u4")
    contact_counts = np.ascontiguousarray(contact_counts, dtype="<u4")
    if contacts is None:
        contacts = np.zeros((0, CONTACT_WIDTH), dtype="<f4")
    contacts = np.ascontiguousarray(contacts, dtype="<f4").reshape(-1, CONTACT_WIDTH)
    head = HEADER.pack(kind, epoch, start, k, poses.shape[1], contacts.shape[0])
    return b"".join((head, times.tobytes(), poses.tobytes(), contact_counts.tobytes(),
                     contacts.tobytes()))


def decode(data):
    """The parts of a message: dict with kind, epoch, start, times (K,), poses (K, stride),
    contact_counts (K,), contacts (C, 7). Used by tests and tools."""
    kind, epoch, start, k, width, c = HEADER.unpack_from(data, 0)
    off = HEADER.size
    times = np.frombuffer(data, dtype="<f8", count=k, offset=off)
    off += 8 * k
    poses = np.frombuffer(data, dtype="<f4", count=k * width, offset=off).reshape(k, width)
    off += 4 * k * width
    counts = np.frombuffer(data, dtype="<u4", count=k, offset=off)
    off += 4 * k
    contacts = np.frombuffer(data, dtype="<f4", count=c * CONTACT_WIDTH,
                             offset=off).reshape(c, CONTACT_WIDTH)
    return {"kind": kind, "epoch": epoch, "start": start, "times": times, "poses": poses,
            "contact_counts": counts, "contacts": contacts}


def split_poses(poses, link_counts):
    """The per-character blocks of ``poses`` (..., stride): a list of (root_p (..., 3),
    root_quat (..., 4), q (..., links)) in layout order."""
    out, off = [], 0
    for n in link_counts:
        block = poses[..., off:off + 7 + n]
        out.append((block[..., 0:3], block[..., 3:7], block[..., 7:]))
        off += 7 + n
    return out
