// cameras.js - the camera panel: one tile per vision sensor of the loaded bodies.
//
// The tiles are laid out from the bodies' VisionSensor entries (name, link, resolution from
// specValues: width and height are its 5th and 6th numbers in OpenHRP's VisionSensor spec).
// The server lists the stored frames of each camera (GET api/cameras: frame numbers and their
// simulated times); update(time) shows in each tile the latest frame at or before the time on
// screen, fetched on demand from api/camera/CHARACTER/SENSOR/FRAME.png (one request in flight
// per camera; the last few frames of each camera are kept, so playing back and forth over a
// short stretch costs no requests). A depth-only camera's frames come as grey images. A run that
// stores no frames (cameras off) has its tiles say so; a frame that is mostly black says why.

const KEEP = 8;           // decoded frames kept per camera
const BLACK = 0.5;        // share of black pixels from which a frame's caption says why
const TIME_EPS = 1e-9;    // as the server's cameras.TIME_EPS

// index of the last entry of the sorted array `times` that is <= t, or -1
function lastAtOrBefore(times, t) {
  let lo = 0, hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t + TIME_EPS) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo - 1;
}

export class CameraPanel {
  constructor(container) {
    this.container = container;
    this.tiles = new Map();
    this.feeds = new Map();   // key -> {character, sensor, kind, frames, times}
    this.time = null;
    this.requests = 0;
    this.stored = null;       // whether the run stores camera frames (null: not known)
  }

  // the server's list of stored frames (GET api/cameras) and whether the run stores any
  // (false: cameras off, null: not known)
  setCameras(list, stored = null) {
    this.feeds = new Map(list.map((c) => [c.key, c]));
    this.stored = stored;
    this.markOff();
    if (this.time !== null) {
      this.update(this.time, true);
    }
  }

  // a run that stores no camera frames: its tiles say so instead of waiting for a first image
  markOff() {
    for (const tile of this.tiles.values()) {
      const off = this.stored === false && !this.feeds.has(tile.key);
      if (off && !tile.off) {
        this.placeholder(tile, "cameras off",
          "cameras off: this run stored no frames (hrpsim run --cameras)");
      } else if (!off && tile.off) {
        this.placeholder(tile, "no image yet", "no image yet");
      }
      tile.off = off;
    }
  }

  // an empty tile: `text` in the middle of the canvas, `caption` below it
  placeholder(tile, text, caption) {
    const { width: w, height: h } = tile.canvas;
    const ctx = tile.canvas.getContext("2d");
    ctx.fillStyle = "#0b0d10";
    ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = "#6b7480";
    ctx.font = `${Math.round(h / 12)}px sans-serif`;
    ctx.textAlign = "center";
    ctx.fillText(text, w / 2, h / 2);
    tile.cap.textContent = `${tile.label} · ${caption}`;
  }

  // show in every tile the latest frame at or before simulated time t
  update(t, force = false) {
    if (t === null || t === undefined || (t === this.time && !force)) {
      return;
    }
    this.time = t;
    for (const [key, tile] of this.tiles) {
      const feed = this.feeds.get(key);
      if (!feed || !feed.times.length) {
        continue;
      }
      const i = lastAtOrBefore(feed.times, t);
      const frame = i < 0 ? null : feed.frames[i];
      tile.wanted = frame;
      tile.wantedTime = i < 0 ? null : feed.times[i];
      if (frame === null) {
        if (tile.shown !== null) {
          this.clearTile(tile, "no frame yet at this time");
        }
      } else if (frame !== tile.shown) {
        this.fetchFrame(key, tile, feed);
      }
    }
  }

  clearTile(tile, text) {
    const ctx = tile.canvas.getContext("2d");
    const { width: w, height: h } = tile.canvas;
    ctx.fillStyle = "#0b0d10";
    ctx.fillRect(0, 0, w, h);
    tile.shown = null;
    tile.shownTime = null;
    tile.cap.textContent = `${tile.label} · ${text}`;
  }

  async fetchFrame(key, tile, feed) {
    const frame = tile.wanted;
    const cached = tile.cache.get(frame);
    if (cached) {
      tile.cache.delete(frame);  // most recently used last
      tile.cache.set(frame, cached);
      this.draw(tile, frame, cached);
      return;
    }
    if (tile.loading) {
      return;  // the answer in flight fetches what is wanted then
    }
    tile.loading = true;
    const url = `api/camera/${encodeURIComponent(feed.character)}/` +
      `${encodeURIComponent(feed.sensor)}/${frame}.png`;
    try {
      this.requests++;
      const r = await fetch(url);
      if (!r.ok) {
        throw new Error(`${url}: ${r.status}`);
      }
      const bitmap = await createImageBitmap(await r.blob(),
        { colorSpaceConversion: "none", premultiplyAlpha: "none" });
      tile.cache.set(frame, bitmap);
      while (tile.cache.size > KEEP) {
        const [oldest, bmp] = tile.cache.entries().next().value;
        tile.cache.delete(oldest);
        bmp.close();
      }
      if (tile.wanted === frame) {
        this.draw(tile, frame, bitmap);
      }
    } catch (err) {
      tile.cap.textContent = `${tile.label} · frame ${frame}: ${err.message}`;
      tile.failed = frame;
    } finally {
      tile.loading = false;
    }
    if (tile.wanted !== null && tile.wanted !== tile.shown && tile.failed !== tile.wanted) {
      this.fetchFrame(key, tile, feed);
    }
  }

  draw(tile, frame, bitmap) {
    const f = this.feeds.get(tile.key);
    const i = f ? f.frames.indexOf(frame) : -1;
    const time = i < 0 ? 0 : f.times[i];
    this.showImage(tile.key, bitmap, time);
    tile.shown = frame;
    tile.shownTime = time;
    tile.cap.textContent = `${tile.label} · frame ${frame}, t = ${time.toFixed(3)} s` +
      this.blackNote(tile, f && f.kind);
  }

  // a frame mostly black (at least BLACK of its pixels 0, 0, 0) gets a note: a camera sees
  // black where nothing is in view (OpenHRP's cameras have no background), a depth image
  // where nothing is within range
  blackNote(tile, kind) {
    const { width: w, height: h } = tile.canvas;
    const data = tile.canvas.getContext("2d").getImageData(0, 0, w, h).data;
    let black = 0;
    for (let i = 0; i < data.length; i += 4) {
      black += (data[i] | data[i + 1] | data[i + 2]) === 0;
    }
    tile.black = black / (w * h);
    if (tile.black < BLACK) {
      return "";
    }
    return kind === "depth" ? " · black: nothing within range"
      : " · black: nothing in view (OpenHRP's background)";
  }

  // for tests: what each tile wants and shows
  state() {
    const out = {};
    for (const [key, t] of this.tiles) {
      out[key] = { wanted: t.wanted, wantedTime: t.wantedTime, shown: t.shown,
        shownTime: t.shownTime, width: t.canvas.width, height: t.canvas.height, off: t.off,
        black: t.black, caption: t.cap.textContent };
    }
    return out;
  }

  // for tests: the RGBA pixels of a tile's canvas, base64
  pixels(key) {
    const t = this.tiles.get(key);
    if (!t) {
      return null;
    }
    const { width: w, height: h } = t.canvas;
    const data = t.canvas.getContext("2d").getImageData(0, 0, w, h).data;
    let bin = "";
    for (let i = 0; i < data.length; i += 0x8000) {
      bin += String.fromCharCode.apply(null, data.subarray(i, i + 0x8000));
    }
    return { width: w, height: h, rgba: btoa(bin) };
  }

  setBodies(bodies) {
    this.container.innerHTML = "";
    for (const t of this.tiles.values()) {
      for (const bmp of t.cache.values()) {
        bmp.close();
      }
    }
    this.tiles.clear();
    for (const b of bodies) {
      for (const s of b.sensors("Vision")) {
        const key = `${b.name}/${s.name}`;
        const tile = document.createElement("figure");
        tile.className = "camera";
        const canvas = document.createElement("canvas");
        const w = s.specValues[4] || 320, h = s.specValues[5] || 240;
        canvas.width = w;
        canvas.height = h;
        const cap = document.createElement("figcaption");
        tile.append(canvas, cap);
        this.container.appendChild(tile);
        const t = {
          key, canvas, cap, label: `${key} (${w}x${h})`, wanted: null, wantedTime: null,
          shown: null, shownTime: null, loading: false, failed: null, cache: new Map(),
          off: false, black: null,
        };
        this.tiles.set(key, t);
        this.placeholder(t, "no image yet", "no image yet");
      }
    }
    this.markOff();
    if (!this.tiles.size) {
      this.container.textContent = "no vision sensors in the loaded bodies";
    }
    if (this.time !== null) {
      this.update(this.time, true);
    }
  }

  // draw an ImageBitmap / ImageData into the tile of character/sensor `key`
  showImage(key, image, time) {
    const t = this.tiles.get(key);
    if (!t) {
      return;
    }
    const ctx = t.canvas.getContext("2d");
    if (image instanceof ImageData) {
      ctx.putImageData(image, 0, 0);
    } else {
      ctx.drawImage(image, 0, 0, t.canvas.width, t.canvas.height);
    }
    t.cap.textContent = `${t.label} · t = ${time.toFixed(3)} s`;
  }
}
