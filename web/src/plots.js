// plots.js - the plot panel: joint angles (from the frames the page holds, live or replay) and,
// for a replay, any logged array of the run (dq, u, body sensors, root position and heading,
// joint stop torques, range scans, track speeds, loop and contact forces) fetched from
// /api/series, named by the status's seriesTitles. Lines are drawn min/max per pixel column, so
// a 60 000-frame log draws as fast as a short one; a cursor marks the time on screen.

const COLORS = ["#4fc3f7", "#ff8a65", "#aed581", "#ffd54f", "#ba68c8", "#4db6ac", "#f06292",
  "#90a4ae", "#dce775", "#7986cb"];
const MAX_DEFAULT_CHANNELS = 6;

export class PlotPanel {
  constructor(els, store) {
    this.els = els;            // { character, series, channels, canvas, cursor, note }
    this.store = store;
    this.bodies = [];
    this.offsets = [];
    this.extra = null;         // replay: {character: [series keys]} from the status
    this.titles = {};          // replay: {series key: title} from the status
    this.fetched = new Map();  // "char/key" -> {times, values (N x n), labels}
    this.dirty = true;
    this.lastDraw = 0;
    els.character.addEventListener("change", () => this.fillSeries());
    els.series.addEventListener("change", () => this.fillChannels());
    els.channels.addEventListener("change", () => {
      this.dirty = true;
      this.userChose = true;
    });
    this.userChose = false;
    this.defaultAt = 0;        // frame count when the default channels were chosen
  }

  setScene(bodies, offsets, extra, titles) {
    this.bodies = bodies;
    this.offsets = offsets;
    this.extra = extra || null;
    this.titles = titles || {};
    const sel = this.els.character;
    const keep = sel.value;
    sel.innerHTML = "";
    for (const b of bodies) {
      if (b.links.some((l) => l.kind) || (this.extra && this.extra[b.name])) {
        sel.add(new Option(b.name, b.name));
      }
    }
    if ([...sel.options].some((o) => o.value === keep)) {
      sel.value = keep;
    } else {
      // a character with joints first (a robot rather than the floor)
      const robot = bodies.find((b) => b.links.some((l) => l.kind));
      if (robot) {
        sel.value = robot.name;
      }
    }
    this.fillSeries();
  }

  body() {
    return this.bodies.find((b) => b.name === this.els.character.value);
  }

  fillSeries() {
    const sel = this.els.series;
    sel.innerHTML = "";
    const b = this.body();
    if (b) {
      sel.add(new Option("joint angle q [rad, m]", "q"));
      for (const key of (this.extra && this.extra[b.name]) || []) {
        if (key !== "q") {
          sel.add(new Option(this.titles[key] || key, key));
        }
      }
    }
    this.fillChannels();
  }

  async fillChannels() {
    const sel = this.els.channels;
    sel.innerHTML = "";
    this.dirty = true;
    this.userChose = false;
    const b = this.body();
    if (!b) {
      return;
    }
    const key = this.els.series.value;
    let labels;
    if (key === "q") {
      const bi = this.bodies.indexOf(b);
      const moving = b.links.map((l, li) => [l, li]).filter(([l]) => l.kind);
      labels = moving.map(([l]) => l.name);
      this.qOffsets = moving.map(([, li]) => this.offsets[bi] + 7 + li);
    } else {
      const data = await this.fetchSeries(b.name, key);
      labels = data ? data.labels : [];
    }
    labels.forEach((name, i) => sel.add(new Option(name, String(i))));
    this.chooseDefault();
  }

  async fetchSeries(character, key) {
    const id = `${character}/${key}`;
    if (!this.fetched.has(id)) {
      const r = await fetch(`api/series?character=${encodeURIComponent(character)}` +
        `&key=${encodeURIComponent(key)}`);
      if (!r.ok) {
        return null;
      }
      const j = await r.json();
      const bin = atob(j.data);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) {
        bytes[i] = bin.charCodeAt(i);
      }
      this.fetched.set(id, { values: new Float32Array(bytes.buffer), width: j.labels.length,
        labels: j.labels, unit: j.unit });
    }
    return this.fetched.get(id);
  }

  // select the channels that move most (up to a few); chosen again as a live log grows,
  // until the user picks channels
  chooseDefault() {
    const sel = this.els.channels;
    if (!sel.options.length) {
      return;
    }
    for (const o of sel.options) {
      o.selected = false;
    }
    this.defaultAt = this.store.count;
    const n = sel.options.length;
    const range = new Array(n).fill(0);
    const s = this.store;
    const step = Math.max(1, Math.floor(s.count / 200));
    const value = this.valueGetter();
    for (let c = 0; c < n; c++) {
      let lo = Infinity, hi = -Infinity;
      for (let i = 0; i < s.count; i += step) {
        const v = value(c, i);
        if (Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
      range[c] = hi - lo;
    }
    const order = [...range.keys()].sort((a, b) => range[b] - range[a]);
    const chosen = order.slice(0, MAX_DEFAULT_CHANNELS).filter((c) => range[c] > 1e-6);
    for (const c of (chosen.length ? chosen : order.slice(0, 1))) {
      sel.options[c].selected = true;
    }
    this.dirty = true;
  }

  // a function (c, i) -> value of channel c at frame i, for the current selection (looked
  // up once here: reading the DOM per sample would cost more than the drawing)
  valueGetter() {
    const key = this.els.series.value;
    const b = this.body();
    const s = this.store;
    if (!b) {
      return () => NaN;
    }
    if (key === "q") {
      const offs = this.qOffsets || [];
      const poses = s.poses, stride = s.stride;
      return (c, i) => (offs[c] === undefined ? NaN : poses[i * stride + offs[c]]);
    }
    const data = this.fetched.get(`${b.name}/${key}`);
    if (!data) {
      return () => NaN;
    }
    const { values, width } = data;
    return (c, i) => (i * width + c < values.length ? values[i * width + c] : NaN);
  }

  // redraw the lines when needed (at most 4 times a second while data grows)
  draw(now, index) {
    const cv = this.els.canvas;
    const w = cv.clientWidth, h = cv.clientHeight;
    if (cv.width !== w || cv.height !== h) {
      cv.width = w;
      cv.height = h;
      this.els.cursor.width = w;
      this.els.cursor.height = h;
      this.dirty = true;
    }
    if (!this.userChose && this.store.count >= Math.max(2, 2 * this.defaultAt)) {
      this.chooseDefault();
    }
    if (this.dirty && now - this.lastDraw > 250) {
      this.drawLines(w, h);
      this.lastDraw = now;
      this.dirty = false;
    }
    this.drawCursor(w, h, index);
  }

  drawLines(w, h) {
    const ctx = this.els.canvas.getContext("2d");
    ctx.clearRect(0, 0, w, h);
    const s = this.store;
    const chans = [...this.els.channels.selectedOptions].map((o) => parseInt(o.value, 10));
    this.range = null;
    if (!s.count || !chans.length || w < 20) {
      this.els.note.textContent = s.count ? "choose channels" : "no frames yet";
      return;
    }
    this.els.note.textContent = "";
    const t0 = s.times[0], t1 = Math.max(s.times[s.count - 1], t0 + 1e-9);
    let lo = Infinity, hi = -Infinity;
    const cols = [];
    const value = this.valueGetter();
    const times = s.times;
    const scale = (w - 1) / (t1 - t0);
    for (const c of chans) {
      const col = new Float32Array(2 * w).fill(NaN);
      for (let i = 0; i < s.count; i++) {
        const v = value(c, i);
        if (!Number.isFinite(v)) {
          continue;
        }
        const x = Math.min(w - 1, Math.floor((times[i] - t0) * scale));
        if (!(col[2 * x] <= v)) {
          col[2 * x] = v;
        }
        if (!(col[2 * x + 1] >= v)) {
          col[2 * x + 1] = v;
        }
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      cols.push(col);
    }
    if (!(hi >= lo)) {
      return;
    }
    const pad = (hi - lo) * 0.08 || 0.1;
    lo -= pad;
    hi += pad;
    this.range = { t0, t1 };
    const y = (v) => h - 14 - ((v - lo) / (hi - lo)) * (h - 22);
    // axes: zero line and the value range
    ctx.fillStyle = "#9aa4b2";
    ctx.font = "10px sans-serif";
    ctx.fillText(hi.toPrecision(3), 2, 10);
    ctx.fillText(lo.toPrecision(3), 2, h - 16);
    ctx.fillText(`${t0.toFixed(2)} s`, 2, h - 2);
    ctx.fillText(`${t1.toFixed(2)} s`, w - 44, h - 2);
    if (lo < 0 && hi > 0) {
      ctx.strokeStyle = "#3a414c";
      ctx.beginPath();
      ctx.moveTo(0, y(0));
      ctx.lineTo(w, y(0));
      ctx.stroke();
    }
    cols.forEach((col, k) => {
      ctx.strokeStyle = COLORS[k % COLORS.length];
      ctx.lineWidth = 1.3;
      ctx.beginPath();
      let started = false;
      for (let x = 0; x < w; x++) {
        const a = col[2 * x], b = col[2 * x + 1];
        if (!Number.isFinite(a)) {
          continue;
        }
        if (!started) {
          ctx.moveTo(x, y(a));
          started = true;
        } else {
          ctx.lineTo(x, y(a));
        }
        if (b !== a) {
          ctx.lineTo(x, y(b));
        }
      }
      ctx.stroke();
    });
    // legend
    const names = chans.map((c) => this.els.channels.options[c].text);
    names.forEach((n, k) => {
      ctx.fillStyle = COLORS[k % COLORS.length];
      const cols = Math.max(1, Math.floor((w - 60) / 120));
      ctx.fillText(n, 60 + (k % cols) * 120, 10 + Math.floor(k / cols) * 11);
    });
  }

  drawCursor(w, h, index) {
    const ctx = this.els.cursor.getContext("2d");
    ctx.clearRect(0, 0, w, h);
    const s = this.store;
    if (!this.range || !s.count) {
      return;
    }
    const t = s.times[Math.min(index, s.count - 1)];
    const x = ((t - this.range.t0) / (this.range.t1 - this.range.t0)) * (w - 1);
    ctx.strokeStyle = "#ffffff88";
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, h - 12);
    ctx.stroke();
  }
}
