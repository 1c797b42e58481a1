// frames.js - the frames a page has received, and the binary messages they arrive in.
//
// Message layout (python/hrpsim/viewer/frames.py): six u32 (kind, epoch, start, K, stride,
// C), f64 time[K], f32 pose[K * stride], u32 contacts per frame[K], f32 contact[C * 7]
// (position, normal, depth). kind 1 = frames of the log, 2 = a frame shown but not logged.

export const KIND_LOG = 1;
export const KIND_TRANSIENT = 2;
export const CONTACT_WIDTH = 7;

export function decodeFrames(buf) {
  const h = new Uint32Array(buf, 0, 6);
  const [kind, epoch, start, k, stride, c] = h;
  let off = 24;
  const times = new Float64Array(buf, off, k);
  off += 8 * k;
  const poses = new Float32Array(buf, off, k * stride);
  off += 4 * k * stride;
  const counts = new Uint32Array(buf, off, k);
  off += 4 * k;
  const contacts = new Float32Array(buf, off, c * CONTACT_WIDTH);
  return { kind, epoch, start, k, stride, times, poses, counts, contacts };
}

// growable arrays of every logged frame of one epoch
export class FrameStore {
  constructor() {
    this.reset(0, 0);
  }

  reset(epoch, stride) {
    this.epoch = epoch;
    this.stride = stride;
    this.count = 0;
    this.times = new Float64Array(1024);
    this.poses = new Float32Array(1024 * Math.max(1, stride));
    this.contactStart = new Uint32Array(1025);  // frame i: contacts [start[i], start[i+1])
    this.contacts = new Float32Array(64 * CONTACT_WIDTH);
    this.arrivals = [];                          // [wall ms, sim time] of recent arrivals
  }

  _grow(need) {
    if (need <= this.times.length) {
      return;
    }
    let cap = this.times.length;
    while (cap < need) {
      cap *= 2;
    }
    const t = new Float64Array(cap);
    t.set(this.times.subarray(0, this.count));
    this.times = t;
    const p = new Float32Array(cap * Math.max(1, this.stride));
    p.set(this.poses.subarray(0, this.count * this.stride));
    this.poses = p;
    const s = new Uint32Array(cap + 1);
    s.set(this.contactStart.subarray(0, this.count + 1));
    this.contactStart = s;
  }

  // append a decoded message whose frames continue this store; false if it does not fit
  append(msg) {
    if (msg.epoch !== this.epoch || msg.stride !== this.stride || msg.start !== this.count) {
      return false;
    }
    this._grow(this.count + msg.k);
    this.times.set(msg.times, this.count);
    this.poses.set(msg.poses, this.count * this.stride);
    let c0 = this.contactStart[this.count];
    const needC = (c0 + msg.contacts.length / CONTACT_WIDTH) * CONTACT_WIDTH;
    if (needC > this.contacts.length) {
      const grown = new Float32Array(Math.max(needC, 2 * this.contacts.length));
      grown.set(this.contacts.subarray(0, c0 * CONTACT_WIDTH));
      this.contacts = grown;
    }
    this.contacts.set(msg.contacts, c0 * CONTACT_WIDTH);
    for (let i = 0; i < msg.k; i++) {
      c0 += msg.counts[i];
      this.contactStart[this.count + i + 1] = c0;
    }
    this.count += msg.k;
    if (msg.k) {
      this.arrivals.push([performance.now(), msg.times[msg.k - 1]]);
      if (this.arrivals.length > 64) {
        this.arrivals.shift();
      }
    }
    return true;
  }

  pose(i) {
    return this.poses.subarray(i * this.stride, (i + 1) * this.stride);
  }

  contactsOf(i) {
    return this.contacts.subarray(this.contactStart[i] * CONTACT_WIDTH,
      this.contactStart[i + 1] * CONTACT_WIDTH);
  }

  // the last frame whose time is <= t (0 if none)
  indexAt(t) {
    let lo = 0, hi = this.count - 1;
    if (hi < 0) {
      return 0;
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.times[mid] <= t) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  // simulated seconds per wall second over the recent arrivals (live), or null
  arrivalRate() {
    const a = this.arrivals;
    if (a.length < 2) {
      return null;
    }
    const [w0, t0] = a[0];
    const [w1, t1] = a[a.length - 1];
    if (performance.now() - w1 > 1500 || w1 - w0 < 200) {
      return null;
    }
    return (t1 - t0) / ((w1 - w0) / 1000);
  }
}
