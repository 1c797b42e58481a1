// control.js - acting on the live run from the page: pause, resume and single-step it, and push
// a link by dragging it (python/hrpsim/viewer/control.py answers; docs/viewer.md).
//
// The controls show only while the viewer's server holds the run's Scheduler (status.control:
// `hrpsim run --view` hands it over). Every request goes over the page's WebSocket as JSON
// ({"op": ...}) and is answered with the run's state, time and steps; the page asks for the
// state once a second while it can control a run.
//
// A push: Ctrl + left-drag on a body grabs the link under the pointer at the point hit. While
// the button is held, the run pulls that point towards the pointer (on the plane through the
// grabbed point that faces the camera) with a damped spring (Scheduler.push, evaluated at every
// step with the link as it is then): stiffness PUSH_GAIN x the character's mass, damping
// PUSH_DAMPING x its mass (critical for the mass alone), at most PUSH_MAX_G x its weight. The
// page sends the target whenever the pointer moves; letting go releases the push. A line from
// the grabbed point to the pointer shows the pull.

import * as THREE from "three";

const PUSH_GAIN = 40;        // [1/s^2]: a 10 cm pull gives 4 m/s^2 x the character's mass
const PUSH_DAMPING = 2 * Math.sqrt(PUSH_GAIN);  // [1/s]: critical, for the mass alone
const PUSH_MAX_G = 5;        // the pull is at most 5 x the character's weight
const LINE_MS = 50;          // how often the pull's line follows the link
const STATE_POLL_MS = 1000;
const DEFAULT_FRAME_S = 1 / 30;

export class RunControl {
  // elements: {bar, pause, step, state}; view: View3D; send(obj): sends JSON on the socket;
  // frameSeconds(): one viewer frame's time
  constructor(elements, view, send, frameSeconds) {
    this.el = elements;
    this.view = view;
    this.send = send;
    this.frameSeconds = frameSeconds;
    this.available = false;
    this.state = null;        // the run's state name after the last answer
    this.time = null;
    this.steps = null;
    this.answers = 0;
    this.lastOp = null;       // the request last answered
    this.answered = {};       // answers per request kind
    this.lastError = null;
    this.bodies = [];
    this.grab = null;         // {body, link, local (link frame), plane, target, mass}
    this.pushesSent = 0;
    this._nextId = 1;
    this._raycaster = new THREE.Raycaster();
    this._ndc = new THREE.Vector2();
    this._lineGeom = new THREE.BufferGeometry().setFromPoints(
      [new THREE.Vector3(), new THREE.Vector3()]);
    this.line = new THREE.Line(this._lineGeom,
      new THREE.LineBasicMaterial({ color: 0xff9100, depthTest: false }));
    this.line.visible = false;
    this.line.renderOrder = 20;
    this.line.frustumCulled = false;
    view.scene.add(this.line);

    elements.pause.addEventListener("click", () => {
      this.request(this.state === "PAUSED" ? "resume" : "pause");
    });
    elements.step.addEventListener("click", () => this.stepFrame());
    const canvas = view.renderer.domElement;
    canvas.addEventListener("pointerdown", (e) => this._down(e), { capture: true });
    canvas.addEventListener("pointermove", (e) => this._move(e));
    canvas.addEventListener("pointerup", (e) => this._up(e));
    canvas.addEventListener("pointercancel", (e) => this._up(e));
    setInterval(() => {
      if (this.available) {
        this.request("state");
      }
    }, STATE_POLL_MS);
    setInterval(() => {
      if (this.grab) {
        this._drawLine();
      }
    }, LINE_MS);
    this._show();
  }

  // the server's status: whether a run can be controlled
  setAvailable(on) {
    this.available = !!on;
    if (!this.available) {
      this._release();
      this.state = null;
    } else {
      this.request("state");
    }
    this._show();
  }

  setBodies(bodies) {
    this._release();
    this.bodies = bodies;
  }

  // send one request (op and its fields); the answer comes to onAnswer
  request(op, fields = {}) {
    if (!this.available) {
      return false;
    }
    return this.send({ op, id: this._nextId++, ...fields });
  }

  // advance a paused run by one viewer frame's time
  stepFrame() {
    return this.request("step", { seconds: this.frameSeconds() || DEFAULT_FRAME_S });
  }

  onAnswer(m) {
    this.answers++;
    this.lastOp = m.op;
    this.answered[m.op] = (this.answered[m.op] || 0) + 1;
    if (m.state) {
      this.state = m.state;
      this.time = m.time;
      this.steps = m.steps;
    }
    this.lastError = m.ok ? null : m.error;
    this._show();
  }

  _show() {
    const { bar, pause, step, state } = this.el;
    bar.hidden = !this.available;
    const paused = this.state === "PAUSED";
    const active = paused || this.state === "RUNNING";
    pause.textContent = paused ? "resume run" : "pause run";
    pause.disabled = !active;
    step.disabled = !paused;
    const what = this.state ? this.state.toLowerCase() : "…";
    const err = this.lastError ? ` · ${this.lastError}` : "";
    const text = `run ${what}${this.grab ? " · pushing" : ""}${err}`;
    if (state.textContent !== text) {
      state.textContent = text;
    }
  }

  // ---- pushing -------------------------------------------------------------------------------

  _pointer(e) {
    const r = this.view.renderer.domElement.getBoundingClientRect();
    this._ndc.set(((e.clientX - r.left) / r.width) * 2 - 1,
      -((e.clientY - r.top) / r.height) * 2 + 1);
    this._raycaster.setFromCamera(this._ndc, this.view.camera);
    return this._raycaster.ray;
  }

  _down(e) {
    if (!this.available || !e.ctrlKey || e.button !== 0 || !this.bodies.length) {
      return;
    }
    this._pointer(e);
    const hits = this._raycaster.intersectObjects(this.bodies.map((b) => b.group), true);
    for (const hit of hits) {
      const found = this._linkOf(hit.object);
      if (!found || !found.body.movable) {
        continue;
      }
      e.preventDefault();
      e.stopImmediatePropagation();  // the orbit camera must not turn meanwhile
      const { body, link } = found;
      const local = link.obj.worldToLocal(hit.point.clone());
      const normal = this.view.camera.getWorldDirection(new THREE.Vector3());
      this.grab = {
        body, link, local, target: hit.point.clone(),
        plane: new THREE.Plane().setFromNormalAndCoplanarPoint(normal, hit.point),
        mass: body.mass > 0 ? body.mass : 1,
      };
      this.view.controls.enabled = false;
      this.view.renderer.domElement.setPointerCapture(e.pointerId);
      this._sendPush();
      this._show();
      return;
    }
  }

  _move(e) {
    if (!this.grab) {
      return;
    }
    const ray = this._pointer(e);
    const p = new THREE.Vector3();
    if (ray.intersectPlane(this.grab.plane, p)) {
      this.grab.target.copy(p);
      this._sendPush();
    }
  }

  _up(e) {
    if (this.grab) {
      this._release();
      this._show();
    }
  }

  _release() {
    if (!this.grab) {
      return;
    }
    this.grab = null;
    this.line.visible = false;
    this.view.controls.enabled = true;
    this.view.needsRender = true;
    this.request("release");
  }

  // the link (of a loaded body) a mesh belongs to
  _linkOf(obj) {
    for (let o = obj; o; o = o.parent) {
      for (const body of this.bodies) {
        const link = body.links.find((l) => l.obj === o);
        if (link) {
          return { body, link };
        }
      }
    }
    return null;
  }

  // the grabbed point as the link is drawn now (world frame)
  grabbedPoint() {
    return this.grab.link.obj.localToWorld(this.grab.local.clone());
  }

  _drawLine() {
    this._lineGeom.setFromPoints([this.grabbedPoint(), this.grab.target]);
    this.line.visible = true;
    this.view.needsRender = true;
  }

  _sendPush() {
    const g = this.grab;
    this._drawLine();
    if (this.request("push", {
      character: g.body.name, link: g.link.name, point: g.local.toArray(),
      target: g.target.toArray(), stiffness: PUSH_GAIN * g.mass,
      damping: PUSH_DAMPING * g.mass, maxForce: PUSH_MAX_G * 9.8 * g.mass,
    })) {
      this.pushesSent++;
    }
  }
}
