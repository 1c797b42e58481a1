// main.js - the viewer page: connects to the server's stream, keeps the frames, draws.
//
// The server sends JSON status messages (mode, epoch, frame count, scene version, settings,
// layout) and binary frame messages. A new scene version makes the page fetch /api/scene
// and rebuild the bodies; a new epoch empties the frame store (the log was cleared, switched
// or restarted, or the layout changed) and the frames of the new epoch follow from index 0.
// window.hrpsim exposes the page's state to tests (see tests/e2e/test_viewer_browser.py).

import * as THREE from "three";
import { Body } from "./bodies.js";
import { CameraPanel } from "./cameras.js";
import { RunControl } from "./control.js";
import { FrameStore, KIND_LOG, KIND_TRANSIENT, decodeFrames } from "./frames.js";
import { Player, TimelineUI } from "./player.js";
import { PlotPanel } from "./plots.js";
import { View3D } from "./view3d.js";

const $ = (id) => document.getElementById(id);

// ask for the scene and open the stream first: both travel while WebGL starts up below
let prefetchedScene = fetch("api/scene").then((r) => r.json());

const store = new FrameStore();
setTimeout(connect, 0);  // after this module has run (the handlers use what follows)
const player = new Player(store);
const view = new View3D($("view"));
const timeline = new TimelineUI(player, {
  play: $("play"), live: $("live"), speed: $("speed"), slider: $("slider"),
  time: $("time"), frame: $("frame"),
});
const plots = new PlotPanel({
  character: $("plot-character"), series: $("plot-series"), channels: $("plot-channels"),
  canvas: $("plot"), cursor: $("plot-cursor"), note: $("plot-note"),
}, store);
const cameras = new CameraPanel($("cameras"));
const control = new RunControl({
  bar: $("run-control"), pause: $("run-pause"), step: $("run-step"), state: $("run-state"),
}, view, sendRequest, frameSeconds);

const page = {
  status: null,
  sceneVersion: -1,
  bodies: [],
  offsets: [],        // start of each body's block in a frame
  transient: null,    // {time, poses, contacts} of a drawScene frame
  dirty: true,
  renders: 0,
  framed: false,
  connected: false,
  showFrames: false,
  shownIndex: -1,
  timing: { start: performance.now() },  // ms since navigation: status, scene, first frame
};

// ---- scene -----------------------------------------------------------------------------------

async function loadScene(version) {
  let scene;
  if (prefetchedScene) {
    scene = await prefetchedScene;
    prefetchedScene = null;
  } else {
    scene = await (await fetch("api/scene")).json();
  }
  if (scene.version === page.sceneVersion) {
    return;
  }
  for (const b of page.bodies) {
    b.dispose();
  }
  page.bodies = scene.characters.map((c) => new Body(c.name, c.body));
  page.offsets = [];
  let off = 0;
  for (const b of page.bodies) {
    page.offsets.push(off);
    off += b.width;
  }
  page.sceneVersion = scene.version;
  view.setBodies(page.bodies);
  for (const b of page.bodies) {
    b.setPose(b.initialPose(), 0);
    b.showFrames(page.showFrames);
  }
  if (!page.framed && page.bodies.length) {
    view.frameBodies();
    page.framed = true;
  }
  plots.setScene(page.bodies, page.offsets, page.status && page.status.series,
    page.status && page.status.seriesTitles);
  fillFollow();
  control.setBodies(page.bodies);
  cameras.setBodies(page.bodies);
  loadCameras();
  $("bodies").textContent = page.bodies.map((b) => b.name).join(", ") || "no bodies loaded";
  page.dirty = true;
  page.timing.scene = page.timing.scene || performance.now();
  if (version !== undefined && version !== scene.version) {
    loadScene(version);
  }
}

function onStatus(st) {
  const first = page.status === null;
  if (first) {
    page.timing.status = performance.now();
  }
  page.status = st;
  if (first) {
    player.setLive(st.mode === "live");
    document.body.classList.add(st.mode);
    document.title = `${st.title} · hrpsim`;
    $("title").textContent = st.title;
    if (st.mode === "replay") {
      showSummary();
    }
  }
  view.lineWidth = st.lineWidth || 1;
  view.lineScale = st.lineScale === undefined ? 1 : st.lineScale;
  const stride = st.layout.reduce((n, [, links]) => n + 7 + links, 0);
  if (st.epoch !== store.epoch || stride !== store.stride) {
    store.reset(st.epoch, stride);
    player.reset();
    page.transient = null;
  }
  if (st.sceneVersion !== page.sceneVersion) {
    loadScene(st.sceneVersion);
  }
  $("log").textContent = st.mode === "live" ? `log ${st.log}` : "";
  control.setAvailable(st.mode === "live" && st.control);
  page.dirty = true;
}

function onFrames(buf) {
  const msg = decodeFrames(buf);
  page.timing.firstData = page.timing.firstData || performance.now();
  if (msg.kind === KIND_LOG) {
    if (store.append(msg)) {
      plots.dirty = true;
      // the pose on screen changes only for the first frames or after a drawScene frame
      // (following a live run moves the index, which frame() notices): otherwise just the
      // timeline grows, and redrawing the 3-D view for it would only cost time
      if (store.count === msg.k || page.transient) {
        page.dirty = true;
      }
      page.transient = null;
      page.uiDirty = true;
    }
  } else if (msg.kind === KIND_TRANSIENT && msg.epoch === store.epoch) {
    page.transient = {
      time: msg.times[0], poses: msg.poses.slice(), contacts: msg.contacts.slice(),
    };
    page.dirty = true;
  }
}

// ---- the stream ------------------------------------------------------------------------------

function connect() {
  const url = new URL("ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  ws.onopen = () => {
    page.connected = true;
    page.ws = ws;
    setConnection("connected");
  };
  ws.onmessage = (ev) => {
    if (typeof ev.data === "string") {
      const m = JSON.parse(ev.data);
      if (m.type === "status") {
        onStatus(m);
      } else if (m.type === "control") {
        control.onAnswer(m);
      }
    } else {
      onFrames(ev.data);
    }
  };
  ws.onclose = () => {
    page.connected = false;
    page.ws = null;
    setConnection(page.status && page.status.mode === "replay" ? "loaded"
      : "disconnected: showing what was received; reconnecting…");
    setTimeout(connect, 2000);
  };
}

// a request to the server (run control, control.js): false when not connected
function sendRequest(obj) {
  if (!page.ws || page.ws.readyState !== WebSocket.OPEN) {
    return false;
  }
  page.ws.send(JSON.stringify(obj));
  return true;
}

// one viewer frame's time: the median gap between the newest frames received (a run paused
// between two frames of its view rate sends the state it paused at, a shorter gap; a frame
// the viewer did not take, a longer one)
function frameSeconds() {
  const n = store.count;
  const gaps = [];
  for (let i = Math.max(1, n - 9); i < n; i++) {
    gaps.push(store.times[i] - store.times[i - 1]);
  }
  gaps.sort((a, b) => a - b);
  return gaps.length ? gaps[Math.floor(gaps.length / 2)] : null;
}

// set an element's text only when it changes (no needless layout and paint)
function setText(id, text) {
  const el = $(id);
  if (el.textContent !== text) {
    el.textContent = text;
  }
}

function setConnection(text) {
  $("connection").textContent = text;
  $("connection").classList.toggle("bad", text.startsWith("disconnected"));
}

// ---- camera frames ---------------------------------------------------------------------------

// the stored frames of the cameras (a replay's, or a live run's as they are written)
async function loadCameras() {
  try {
    const r = await fetch("api/cameras");
    if (r.ok) {
      const { cameras: list, stored } = await r.json();
      cameras.setCameras(list, stored === undefined ? null : stored);
      page.cameraLists = (page.cameraLists || 0) + 1;
    }
  } catch (err) {
    // the server went away: the next status brings the cameras again
  }
}
// a live run writes new frames as it goes (`hrpsim run --view` tells the server where)
setInterval(() => {
  if (page.status && page.status.mode === "live" && page.connected && cameras.tiles.size) {
    loadCameras();
  }
}, 1000);

// ---- replay extras ---------------------------------------------------------------------------

async function showSummary() {
  const r = await fetch("api/summary");
  if (!r.ok) {
    return;
  }
  const s = await r.json();
  $("summary").hidden = false;
  const rows = [
    ["project", s.project], ["status", s.status + (s.message ? `: ${s.message}` : "")],
    ["steps", `${s.steps} of ${s.time_step} s`], ["simulated", `${s.simulated_time.toFixed(3)} s`],
    ["wall time", `${s.wall_time.toFixed(3)} s`],
    ["real time", `x ${s.real_time_factor.toFixed(2)}`], ["records", s.records],
    ["warnings", (s.warnings || []).length || "none"],
  ];
  const table = $("summary-table");
  table.innerHTML = "";
  for (const [k, v] of rows) {
    const tr = table.insertRow();
    tr.insertCell().textContent = k;
    // a path may break after any "/" (a zero-width space there), words only between them
    tr.insertCell().textContent = String(v).replaceAll("/", "/\u200b");
  }
  const imgs = $("summary-plots");
  imgs.innerHTML = "";
  for (const p of s.plots || []) {
    const a = document.createElement("a");
    a.href = `api/files/${encodeURIComponent(p)}`;
    a.target = "_blank";
    const img = document.createElement("img");
    img.src = a.href;
    img.alt = p;
    a.appendChild(img);
    imgs.appendChild(a);
  }
  page.summary = s;
}

// ---- drawing ---------------------------------------------------------------------------------

function poseOnScreen() {
  if (page.transient && (player.follow || !store.count)) {
    return { time: page.transient.time, poses: page.transient.poses,
      contacts: page.transient.contacts };
  }
  if (!store.count) {
    return null;
  }
  const i = player.index;
  return { time: store.times[i], poses: store.pose(i), contacts: store.contactsOf(i) };
}

function rateText() {
  if (!page.status) {
    return "";
  }
  if (page.status.mode === "live") {
    const r = store.arrivalRate();
    return r === null ? "" : `x${r.toFixed(2)} real time (run)`;
  }
  const run = page.summary ? ` · run x${page.summary.real_time_factor.toFixed(2)}` : "";
  return `playback x${player.speed}${run}`;
}

let last = performance.now();
function frame(now) {
  const dt = Math.min(0.25, (now - last) / 1000);
  last = now;
  player.tick(dt);
  if (player.index !== page.shownIndex) {
    page.shownIndex = player.index;
    page.dirty = true;
  }
  if (page.dirty) {
    const shown = poseOnScreen();
    if (shown && shown.poses.length >= (page.offsets.length ? page.offsets.at(-1) : 0)) {
      page.bodies.forEach((b, k) => {
        if (page.offsets[k] + b.width <= shown.poses.length) {
          b.setPose(shown.poses, page.offsets[k]);
        }
      });
      if (!page.posedFramed && page.bodies.length) {
        // the scene's arrival framed the bodies at their model poses; frame them once more
        // where the run has them (a project's root pose), unless the user moved the camera
        page.posedFramed = true;
        if (!page.cameraMoved) {
          view.frameBodies();
        }
      }
      view.setContacts(shown.contacts);
      view.track();
      setText("simtime", `${shown.time.toFixed(3)} s`);
      page.drawnTime = shown.time;
      if (!page.timing.firstFrame && page.bodies.length) {
        page.timing.firstFrame = performance.now();
      }
    }
    page.dirty = false;
    page.uiDirty = true;
    page.needsRender = true;
  }
  cameras.update(page.drawnTime);
  if (page.uiDirty) {
    timeline.update({ total: page.status && page.status.count });
    setText("rate", rateText());
    page.uiDirty = false;
  }
  if (page.needsRender || view.needsRender) {
    const t0 = performance.now();
    view.render();
    page.renderMs = performance.now() - t0;
    if (page.bodies.length && !page.timing.firstRender) {
      page.timing.firstRender = performance.now();
      page.timing.firstRenderMs = page.renderMs;
      page.timing.programs = view.renderer.info.programs.length;
    }
    page.renders++;
    page.needsRender = view.needsRender = false;
  }
  const t1 = performance.now();
  plots.draw(now, player.index);
  page.plotMs = performance.now() - t1;
  page.frameMs = performance.now() - now;
  requestAnimationFrame(frame);
}

// ---- controls --------------------------------------------------------------------------------

$("show-frames").addEventListener("change", (e) => {
  page.showFrames = e.target.checked;
  for (const b of page.bodies) {
    b.showFrames(page.showFrames);
  }
  page.needsRender = true;
});
$("show-contacts").addEventListener("change", (e) => {
  view.showContacts = e.target.checked;
  page.dirty = true;
});
$("show-grid").addEventListener("change", (e) => {
  view.grid.visible = e.target.checked;
  page.needsRender = true;
});
// the follow camera: the characters that can move (a root joint that is not fixed, or joints)
function fillFollow() {
  const sel = $("follow");
  const keep = sel.value;
  sel.innerHTML = "";
  sel.add(new Option("camera: free", ""));
  for (const b of page.bodies) {
    if (b.movable) {
      sel.add(new Option(`follow ${b.name}`, b.name));
    }
  }
  sel.value = [...sel.options].some((o) => o.value === keep) ? keep : "";
  view.follow(page.bodies.find((b) => b.name === sel.value) || null);
}
$("follow").addEventListener("change", () => {
  view.follow(page.bodies.find((b) => b.name === $("follow").value) || null);
  page.needsRender = true;
});
view.controls.addEventListener("start", () => {
  page.cameraMoved = true;
});
$("reset-camera").addEventListener("click", () => {
  view.frameBodies();
  page.needsRender = true;
});
setInterval(() => setText("rate", rateText()), 500);

// ---- for tests -------------------------------------------------------------------------------

window.hrpsim = {
  get ready() {
    return page.status !== null && page.sceneVersion === page.status.sceneVersion;
  },
  get status() { return page.status; },
  get connected() { return page.connected; },
  get frameCount() { return store.count; },
  get index() { return player.index; },
  get time() { return store.count ? store.times[player.index] : null; },
  get renders() { return page.renders; },
  get renderMs() { return page.renderMs; },
  get profile() { return { render: page.renderMs, plot: page.plotMs, frame: page.frameMs }; },
  get timing() { return page.timing; },
  get drawnTime() { return page.drawnTime; },
  get following() { return player.follow; },
  get playing() { return player.playing; },
  bodyNames: () => page.bodies.map((b) => b.name),
  // follow a character with the camera ("" or null: free camera), as the follow menu does
  follow(name) {
    $("follow").value = name || "";
    $("follow").dispatchEvent(new Event("change"));
  },
  get followed() { return view.followed ? view.followed.name : null; },
  // the orbit camera's target and position (world frame)
  cameraPose: () => ({ target: view.controls.target.toArray(),
    position: view.camera.position.toArray() }),
  seriesOptions: () => [...$("plot-series").options].map((o) => [o.value, o.text]),
  // the current plot's channels and how many records each has (NaN-free values)
  plotData() {
    const chans = [...$("plot-channels").selectedOptions].map((o) => parseInt(o.value, 10));
    const value = plots.valueGetter();
    return chans.map((c) => {
      let n = 0;
      for (let i = 0; i < store.count; i++) {
        if (Number.isFinite(value(c, i))) {
          n++;
        }
      }
      return { channel: $("plot-channels").options[c].text, points: n };
    });
  },
  selectSeries(character, key) {
    $("plot-character").value = character;
    $("plot-character").dispatchEvent(new Event("change"));
    $("plot-series").value = key;
    $("plot-series").dispatchEvent(new Event("change"));
  },
  objectCount: () => view.objectCount(),
  contactCount: () => view.points.count,
  arrowCount: () => view.heads.count,
  // the drawn contact points (world frame), from the overlay's instances
  contactPoints() {
    const m = new THREE.Matrix4();
    const out = [];
    for (let i = 0; i < view.points.count; i++) {
      view.points.getMatrixAt(i, m);
      out.push([m.elements[12], m.elements[13], m.elements[14]]);
    }
    return out;
  },
  seek: (i) => player.seek(i),
  play: () => player.play(),
  pause: () => player.pause(),
  goLive: () => player.goLive(),
  setSpeed: (s) => {
    player.speed = s;
    $("speed").value = String(s);
  },
  // world position of a link's origin as drawn now
  linkPosition(character, link) {
    const b = page.bodies.find((x) => x.name === character);
    const l = b && b.links.find((x) => x.name === link);
    return l ? [l.obj.position.x, l.obj.position.y, l.obj.position.z] : null;
  },
  // where a world point appears on screen, in CSS pixels of the 3-D view
  project(p) {
    const v = view.camera.position.clone().set(p[0], p[1], p[2]).project(view.camera);
    const r = view.renderer.domElement.getBoundingClientRect();
    return [r.left + (v.x + 1) / 2 * r.width, r.top + (1 - v.y) / 2 * r.height];
  },
  // the run control (control.js): whether the page holds the run, its state as last
  // answered, the requests answered and pushes sent; request(op, fields) sends one
  get control() {
    return { available: control.available, state: control.state, time: control.time,
      steps: control.steps, answers: control.answers, lastOp: control.lastOp,
      answered: { ...control.answered },
      pushesSent: control.pushesSent,
      grabbing: !!control.grab, lastError: control.lastError };
  },
  controlRequest: (op, fields) => control.request(op, fields || {}),
  // one viewer frame's time (frameSeconds above), and the newest frame's time
  get frameSeconds() { return frameSeconds(); },
  get lastFrameTime() { return store.count ? store.times[store.count - 1] : null; },
  linkNames: (character) => {
    const b = page.bodies.find((x) => x.name === character);
    return b ? b.links.map((l) => l.name) : [];
  },
  stepFrame: () => control.stepFrame(),
  cameraState: () => cameras.state(),
  cameraPixels: (key) => cameras.pixels(key),
  get cameraRequests() { return cameras.requests; },
  get cameraLists() { return page.cameraLists || 0; },
  lastArrival: () => (store.arrivals.length ? store.arrivals.at(-1)[0] : null),
  now: () => performance.now(),
};

requestAnimationFrame(frame);
