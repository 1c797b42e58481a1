// view3d.js - the 3-D view: renderer, orbit camera (z up), floor grid, default lights, the
// bodies of the scene, and the contact overlay (points, and arrows along the contact normals).
// The camera can follow a body: its target stays on the body's root link, and the camera
// moves with it (keeping the user's angle and distance).
//
// A contact arrow starts at the contact point and points along the normal; its length is
// lineScale x (0.05 m + 10 x penetration depth) and its thickness grows with lineWidth (the
// OnlineViewer's setLineScale / setLineWidth), like GrxUI's depth-scaled normal lines.

import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { CONTACT_WIDTH } from "./frames.js";

const BACKGROUND = 0x20242b;
const MAX_CONTACTS = 4096;

// true when WebGL runs on a CPU rasteriser (SwiftShader, llvmpipe)
function isSoftwareRenderer() {
  try {
    const gl = document.createElement("canvas").getContext("webgl2");
    const ext = gl && gl.getExtension("WEBGL_debug_renderer_info");
    const name = ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : "";
    gl && gl.getExtension("WEBGL_lose_context")?.loseContext();
    return /swiftshader|llvmpipe|software/i.test(name);
  } catch (e) {
    return false;
  }
}

export class View3D {
  constructor(container) {
    this.container = container;
    // multisampling costs a software renderer (SwiftShader: no GPU) most of its frame time
    this.software = isSoftwareRenderer();
    this.renderer = new THREE.WebGLRenderer({ antialias: !this.software });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.renderer.setClearColor(BACKGROUND);
    container.appendChild(this.renderer.domElement);

    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.01, 200);
    this.camera.up.set(0, 0, 1);
    this.camera.position.set(2.6, -2.0, 1.5);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.set(0, 0, 0.6);
    this.controls.enableDamping = false;
    this.controls.update();
    this.needsRender = true;  // the camera moved or the view was resized
    this.controls.addEventListener("change", () => { this.needsRender = true; });

    // lights that make any model visible, plus a headlight that follows the camera
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x404048, 1.6));
    this.headlight = new THREE.DirectionalLight(0xffffff, 1.4);
    this.camera.add(this.headlight);
    this.headlight.position.set(0.3, 0.6, 1);
    this.scene.add(this.camera);

    // floor grid: 10 m x 10 m, 1 m cells split in two, in the z = 0 plane
    this.grid = new THREE.Group();
    const fine = new THREE.GridHelper(10, 20, 0x454c57, 0x454c57);
    const coarse = new THREE.GridHelper(10, 10, 0x6a7380, 0x5a6370);
    for (const g of [fine, coarse]) {
      g.rotation.x = Math.PI / 2;
      g.position.z = 0.001;
      g.material.depthWrite = false;
      g.renderOrder = 1;  // after the bodies, so a floor's top face does not hide it
      this.grid.add(g);
    }
    this.grid.add(new THREE.AxesHelper(0.5));
    this.scene.add(this.grid);

    this.bodies = new THREE.Group();
    this.scene.add(this.bodies);

    // contacts: instanced points and arrows (shaft + head)
    const contactMat = new THREE.MeshBasicMaterial({ color: 0xffd23f, depthTest: false });
    const arrowMat = new THREE.MeshBasicMaterial({ color: 0xff4fd8, depthTest: false });
    this.points = new THREE.InstancedMesh(new THREE.SphereGeometry(1, 10, 6), contactMat,
      MAX_CONTACTS);
    const shaft = new THREE.CylinderGeometry(1, 1, 1, 8).translate(0, 0.5, 0);
    const head = new THREE.ConeGeometry(1, 1, 10).translate(0, 0.5, 0);
    this.shafts = new THREE.InstancedMesh(shaft, arrowMat, MAX_CONTACTS);
    this.heads = new THREE.InstancedMesh(head, arrowMat, MAX_CONTACTS);
    for (const m of [this.points, this.shafts, this.heads]) {
      m.count = 0;
      m.renderOrder = 10;
      m.frustumCulled = false;
      this.scene.add(m);
    }
    this.lineWidth = 1;
    this.lineScale = 1;
    this.showContacts = true;
    this.followed = null;      // the Body the camera follows, or null
    this._root = new THREE.Vector3();

    this._m = new THREE.Matrix4();
    this._q = new THREE.Quaternion();
    this._v = new THREE.Vector3();
    this._s = new THREE.Vector3();
    this._y = new THREE.Vector3(0, 1, 0);
    this.resize();
    new ResizeObserver(() => this.resize()).observe(container);
  }

  resize() {
    const w = Math.max(1, this.container.clientWidth);
    const h = Math.max(1, this.container.clientHeight);
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.needsRender = true;
  }

  setBodies(bodies) {
    this.bodies.clear();
    this.bodyList = bodies;
    for (const b of bodies) {
      this.bodies.add(b.group);
    }
  }

  // the bodies a default view frames, as the stills do: the robots (bodies with joints), else
  // the bodies that can move, else every body
  framedBodies() {
    const all = this.bodyList || [];
    const robots = all.filter((b) => b.links.some((l) => l.kind));
    if (robots.length) {
      return robots;
    }
    const movable = all.filter((b) => b.movable);
    return movable.length ? movable : all;
  }

  // aim the camera at the framed bodies as they are posed now
  frameBodies() {
    const box = new THREE.Box3();
    this.bodies.updateMatrixWorld(true);
    for (const body of this.framedBodies()) {
      box.union(new THREE.Box3().setFromObject(body.group));
    }
    if (box.isEmpty()) {
      return;
    }
    const c = box.getCenter(new THREE.Vector3());
    const r = Math.max(0.3, box.getSize(new THREE.Vector3()).length() / 2);
    this.controls.target.copy(c);
    const dir = new THREE.Vector3(1.3, -1.0, 0.55).normalize();
    const dist = r / Math.sin((this.camera.fov * Math.PI) / 360) * 1.05;
    this.camera.position.copy(c).addScaledVector(dir, dist);
    this.controls.update();
    this.needsRender = true;
  }

  // follow body (a Body, or null for a free camera): aim at its root link from now on
  follow(body) {
    this.followed = body && body.links.length ? body : null;
    this.track();
  }

  // move the camera with the followed body's root link (call after the bodies are posed)
  track() {
    if (!this.followed) {
      return;
    }
    const root = this._root;
    this.followed.links[0].obj.getWorldPosition(root);
    if (root.distanceToSquared(this.controls.target) < 1e-12) {
      return;
    }
    const delta = root.clone().sub(this.controls.target);
    this.controls.target.copy(root);
    this.camera.position.add(delta);
    this.controls.update();
    this.needsRender = true;
  }

  // contacts: Float32Array of 7 numbers per point (position, normal, depth)
  setContacts(data) {
    const n = this.showContacts ? Math.min(MAX_CONTACTS, data.length / CONTACT_WIDTH) : 0;
    const r = 0.006 * Math.sqrt(this.lineWidth);
    const shaftR = 0.0025 * this.lineWidth;
    const m = this._m, q = this._q, v = this._v, s = this._s;
    for (let i = 0; i < n; i++) {
      const o = i * CONTACT_WIDTH;
      v.set(data[o], data[o + 1], data[o + 2]);
      m.makeScale(r, r, r).setPosition(v);
      this.points.setMatrixAt(i, m);
      const len = this.lineScale * (0.05 + 10 * Math.max(0, data[o + 6]));
      const headLen = Math.min(0.3 * len, 0.03);
      const nrm = s.set(data[o + 3], data[o + 4], data[o + 5]);
      if (nrm.lengthSq() === 0) {
        nrm.set(0, 0, 1);
      }
      q.setFromUnitVectors(this._y, nrm.normalize());
      m.compose(v, q, s.set(shaftR, Math.max(1e-6, len - headLen), shaftR));
      this.shafts.setMatrixAt(i, m);
      const tip = v.clone().addScaledVector(
        new THREE.Vector3(0, 1, 0).applyQuaternion(q), len - headLen);
      m.compose(tip, q, s.set(2.5 * shaftR, headLen, 2.5 * shaftR));
      this.heads.setMatrixAt(i, m);
    }
    if (n === 0 && this.points.count === 0) {
      return;  // nothing to upload
    }
    for (const mesh of [this.points, this.shafts, this.heads]) {
      mesh.count = n;
      mesh.instanceMatrix.clearUpdateRanges();
      mesh.instanceMatrix.addUpdateRange(0, 16 * n);
      mesh.instanceMatrix.needsUpdate = true;
    }
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }

  // how many drawable objects the scene holds (meshes, lights, helpers): for tests
  objectCount() {
    let n = 0;
    this.bodies.traverse((o) => {
      if (o.isMesh) {
        n++;
      }
    });
    return n;
  }
}
