// bodies.js - three.js objects for the bodies of a scene, and posing them from frames.
//
// A body description (python/hrpsim/viewer/scene.py) lists links (parent, joint, fixed offset,
// shapes, sensors, lights) and shared tables of shapes, appearances, materials and textures.
// Every link becomes an Object3D placed directly under the body's group in world coordinates;
// setPose() runs forward kinematics from a frame's pose block (root position, root quaternion
// x y z w, one joint value per link): a link's frame is its parent's moved by the fixed offset
// and then rotated about (rotate) or moved along (slide) its axis, as model/'s kinematics.

import * as THREE from "three";

// base64 of little-endian numbers -> typed array
export function decodeArray(text, Type) {
  if (!text) {
    return new Type(0);
  }
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) {
    bytes[i] = bin.charCodeAt(i);
  }
  return new Type(bytes.buffer, 0, bytes.length / Type.BYTES_PER_ELEMENT);
}

function axisAngleQuaternion(aa) {
  const axis = new THREE.Vector3(aa[0], aa[1], aa[2]);
  const q = new THREE.Quaternion();
  if (axis.lengthSq() > 0 && aa[3] !== 0) {
    q.setFromAxisAngle(axis.normalize(), aa[3]);
  }
  return q;
}

// a 3x4 row-major [R t] (OpenHRP DblArray12) as a Matrix4
export function matrix12(m) {
  const out = new THREE.Matrix4();
  out.set(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], 0, 0, 0, 1);
  return out;
}

// ---- geometry --------------------------------------------------------------------------------

// one BufferGeometry per (shape, appearance): non-indexed, attributes per triangle corner
function meshGeometry(shape, app) {
  const verts = decodeArray(shape.vertices, Float32Array);
  const tris = decodeArray(shape.triangles, Int32Array);
  const ntri = Math.floor(tris.length / 3);
  const pos = new Float32Array(ntri * 9);
  for (let c = 0; c < ntri * 3; c++) {
    const v = tris[c];
    pos[3 * c] = verts[3 * v];
    pos[3 * c + 1] = verts[3 * v + 1];
    pos[3 * c + 2] = verts[3 * v + 2];
  }
  const geom = new THREE.BufferGeometry();
  geom.setAttribute("position", new THREE.BufferAttribute(pos, 3));
  if (!app) {
    geom.computeVertexNormals();
    return geom;
  }
  // per-corner lookup of an attribute: indexed per corner, per face, or by vertex index
  const corner = (values, indices, perVertex, width) => {
    const n = values.length / width;
    if (n === 0) {
      return null;
    }
    const out = new Float32Array(ntri * 3 * width);
    for (let c = 0; c < ntri * 3; c++) {
      let k;
      if (perVertex) {
        k = indices.length >= ntri * 3 ? indices[c] : tris[c];
      } else {
        const f = Math.floor(c / 3);
        k = indices.length >= ntri ? indices[f] : f;
      }
      if (k < 0 || k >= n) {
        k = 0;
      }
      for (let j = 0; j < width; j++) {
        out[width * c + j] = values[width * k + j];
      }
    }
    return out;
  };
  const normals = corner(decodeArray(app.normals, Float32Array),
    decodeArray(app.normalIndices, Int32Array), app.normalPerVertex, 3);
  if (normals) {
    geom.setAttribute("normal", new THREE.BufferAttribute(normals, 3));
  } else {
    geom.computeVertexNormals();
  }
  const colors = corner(decodeArray(app.colors, Float32Array),
    decodeArray(app.colorIndices, Int32Array), app.colorPerVertex, 3);
  if (colors) {
    geom.setAttribute("color", new THREE.BufferAttribute(colors, 3));
  }
  const uv = corner(decodeArray(app.texCoords, Float32Array),
    decodeArray(app.texCoordIndices, Int32Array), true, 2);
  if (uv) {
    const m = app.texTransform || [1, 0, 0, 0, 1, 0, 0, 0, 1];
    for (let c = 0; c < uv.length; c += 2) {
      const u = uv[c], v = uv[c + 1];
      uv[c] = m[0] * u + m[1] * v + m[2];
      uv[c + 1] = m[3] * u + m[4] * v + m[5];
    }
    geom.setAttribute("uv", new THREE.BufferAttribute(uv, 2));
  }
  return geom;
}

// smoother primitives than the loader's triangulation, where nothing depends on the mesh
function primitiveGeometry(shape, app) {
  const p = shape.params;
  const plain = !app || (app.texture < 0 && !app.colors);
  if (!plain) {
    return null;
  }
  switch (shape.kind) {
    case "sphere":
      return new THREE.SphereGeometry(p[0], 32, 16);
    case "cylinder":  // radius, height: along y, as VRML's
      return new THREE.CylinderGeometry(p[0], p[0], p[1], 32, 1, !(p[2] && p[4]));
    case "cone":      // bottom radius, height
      return new THREE.ConeGeometry(p[0], p[1], 32, 1, !p[2]);
    default:
      return null;
  }
}

// ---- materials and textures ------------------------------------------------------------------

function makeTexture(tex) {
  if (!tex || !tex.image || !tex.width || !tex.height) {
    return null;
  }
  const src = decodeArray(tex.image, Uint8Array);
  const { width: w, height: h, components: nc } = tex;
  if (src.length < w * h * nc) {
    return null;
  }
  // RGBA, rows bottom first (texture v = 0 is the image's bottom row, as VRML's)
  const rgba = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    const from = (h - 1 - y) * w * nc;
    for (let x = 0; x < w; x++) {
      const s = from + x * nc, d = 4 * (y * w + x);
      const g = src[s];
      rgba[d] = nc >= 3 ? src[s] : g;
      rgba[d + 1] = nc >= 3 ? src[s + 1] : g;
      rgba[d + 2] = nc >= 3 ? src[s + 2] : g;
      rgba[d + 3] = nc === 4 ? src[s + 3] : nc === 2 ? src[s + 1] : 255;
    }
  }
  const t = new THREE.DataTexture(rgba, w, h, THREE.RGBAFormat);
  t.colorSpace = THREE.SRGBColorSpace;
  t.wrapS = tex.repeatS ? THREE.RepeatWrapping : THREE.ClampToEdgeWrapping;
  t.wrapT = tex.repeatT ? THREE.RepeatWrapping : THREE.ClampToEdgeWrapping;
  t.magFilter = THREE.NearestFilter;
  t.generateMipmaps = true;
  t.minFilter = THREE.LinearMipmapLinearFilter;
  t.needsUpdate = true;
  return t;
}

function makeMaterial(body, app, textures, hasColors) {
  const mat = app && app.material >= 0 ? body.materials[app.material] : null;
  const params = { side: app && !app.solid ? THREE.DoubleSide : THREE.FrontSide };
  if (mat) {
    params.color = new THREE.Color().setRGB(...mat.diffuseColor, THREE.SRGBColorSpace);
    params.emissive = new THREE.Color().setRGB(...mat.emissiveColor, THREE.SRGBColorSpace);
    params.specular = new THREE.Color().setRGB(...mat.specularColor, THREE.SRGBColorSpace);
    params.shininess = Math.max(1, mat.shininess * 128);
    if (mat.transparency > 0) {
      params.transparent = true;
      params.opacity = 1 - mat.transparency;
      params.depthWrite = false;
    }
  } else {
    params.color = new THREE.Color(0xcccccc);
  }
  if (hasColors) {
    params.vertexColors = true;
    params.color = new THREE.Color(0xffffff);
  }
  const tex = app && app.texture >= 0 ? textures[app.texture] : null;
  if (tex) {
    params.map = tex;
    if (!mat) {
      params.color = new THREE.Color(0xffffff);
    }
  }
  return new THREE.MeshPhongMaterial(params);
}

// ---- lights ----------------------------------------------------------------------------------

function makeLight(li) {
  if (!li.on) {
    return null;
  }
  const color = new THREE.Color().setRGB(...li.color, THREE.SRGBColorSpace);
  const m = matrix12(li.matrix);
  let light;
  if (li.type === "directional") {
    light = new THREE.DirectionalLight(color, 1.5 * li.intensity);
    const d = new THREE.Vector3(...li.direction).applyMatrix4(
      new THREE.Matrix4().extractRotation(m));
    light.position.copy(d.clone().multiplyScalar(-10));
    light.target.position.set(0, 0, 0);
  } else if (li.type === "spot") {
    light = new THREE.SpotLight(color, 3 * li.intensity, li.radius > 0 ? li.radius : 0,
      Math.min(Math.PI / 2, li.cutOffAngle), li.cutOffAngle > 0
        ? Math.max(0, Math.min(1, 1 - li.beamWidth / li.cutOffAngle)) : 0, 0);
    light.position.set(...li.location).applyMatrix4(m);
    light.target.position.copy(new THREE.Vector3(...li.location).add(
      new THREE.Vector3(...li.direction)).applyMatrix4(m));
  } else {
    light = new THREE.PointLight(color, 3 * li.intensity, li.radius > 0 ? li.radius : 0, 0);
    light.position.set(...li.location).applyMatrix4(m);
  }
  light.name = li.name || li.type + " light";
  return light;
}

// ---- bodies ----------------------------------------------------------------------------------

export class Body {
  // name: the character name; desc: its body description
  constructor(name, desc) {
    this.name = name;
    this.desc = desc;
    this.group = new THREE.Group();
    this.group.name = name;
    this.links = [];
    this.frames = [];   // one AxesHelper per link, shown on demand
    this.meshCount = 0;
    const textures = desc.textures.map(makeTexture);
    const geometries = new Map();
    for (const lk of desc.links) {
      const obj = new THREE.Object3D();
      obj.name = lk.name;
      const kind = lk.jointType === "rotate" ? 1 : lk.jointType === "slide" ? 2 : 0;
      const axis = new THREE.Vector3(...lk.axis);
      if (axis.lengthSq() === 0) {
        axis.set(0, 0, 1);
      }
      this.links.push({
        obj, parent: lk.parent, kind, axis: axis.normalize(),
        offsetP: new THREE.Vector3(...lk.translation),
        offsetQ: axisAngleQuaternion(lk.rotation),
        jointId: lk.jointId, name: lk.name, jointValue: lk.jointValue,
      });
      const addShapes = (refs, parentObj) => {
        for (const ref of refs) {
          const shape = desc.shapes[ref.shape];
          if (!shape) {
            continue;
          }
          const app = shape.appearance >= 0 ? desc.appearances[shape.appearance] : null;
          let geom = geometries.get(ref.shape);
          if (!geom) {
            geom = primitiveGeometry(shape, app) || meshGeometry(shape, app);
            geometries.set(ref.shape, geom);
          }
          const mesh = new THREE.Mesh(geom, makeMaterial(desc, app, textures,
            !!geom.getAttribute("color")));
          mesh.matrixAutoUpdate = false;
          mesh.matrix.copy(matrix12(ref.matrix));
          mesh.userData.kind = shape.kind;
          parentObj.add(mesh);
          this.meshCount++;
        }
      };
      addShapes(lk.shapes, obj);
      for (const s of lk.sensors) {
        if (s.shapes && s.shapes.length) {
          const so = new THREE.Object3D();
          so.position.set(...s.translation);
          so.quaternion.copy(axisAngleQuaternion(s.rotation));
          obj.add(so);
          addShapes(s.shapes, so);
        }
      }
      for (const li of lk.lights) {
        const light = makeLight(li);
        if (light) {
          obj.add(light);
          if (light.target) {
            obj.add(light.target);
          }
        }
      }
      const axes = new THREE.AxesHelper(0.1);
      axes.visible = false;
      obj.add(axes);
      this.frames.push(axes);
      this.group.add(obj);
    }
    this.width = 7 + this.links.length;
    // [kg], for the pushes of control.js (0 when the description has no masses)
    this.mass = desc.links.reduce((m, lk) => m + (lk.mass || 0), 0);
    // whether the body can move: a root that is not fixed, or any joint (the follow camera)
    this.movable = desc.links.length > 0 &&
      (desc.links[0].jointType !== "fixed" || this.links.some((l) => l.kind));
    this._q = new THREE.Quaternion();
    this._v = new THREE.Vector3();
  }

  // the sensors of a type ("Vision", "Force"...), with their link names
  sensors(type) {
    const out = [];
    for (const lk of this.desc.links) {
      for (const s of lk.sensors) {
        if (!type || s.type === type) {
          out.push({ ...s, link: lk.name });
        }
      }
    }
    return out;
  }

  // pose every link from block[off .. off + width): root p, root quaternion, q per link
  setPose(block, off) {
    const L = this.links;
    if (!L.length) {
      return;
    }
    const root = L[0].obj;
    root.position.set(block[off], block[off + 1], block[off + 2]);
    root.quaternion.set(block[off + 3], block[off + 4], block[off + 5], block[off + 6]);
    root.quaternion.normalize();
    const q = this._q, v = this._v;
    for (let i = 1; i < L.length; i++) {
      const lk = L[i];
      const par = L[lk.parent].obj;
      const obj = lk.obj;
      const value = block[off + 7 + i];
      // fixed offset from the parent frame
      v.copy(lk.offsetP).applyQuaternion(par.quaternion);
      obj.position.copy(par.position).add(v);
      obj.quaternion.copy(par.quaternion).multiply(lk.offsetQ);
      // then the joint, about or along the axis in the link frame
      if (lk.kind === 1) {
        obj.quaternion.multiply(q.setFromAxisAngle(lk.axis, value));
      } else if (lk.kind === 2) {
        v.copy(lk.axis).applyQuaternion(obj.quaternion).multiplyScalar(value);
        obj.position.add(v);
      }
    }
  }

  // the pose the model file describes (before any frame)
  initialPose() {
    const block = new Float32Array(this.width);
    const root = this.links[0];
    if (root) {
      block.set([root.offsetP.x, root.offsetP.y, root.offsetP.z,
        root.offsetQ.x, root.offsetQ.y, root.offsetQ.z, root.offsetQ.w]);
    }
    this.links.forEach((lk, i) => {
      if (i > 0 && lk.kind) {
        block[7 + i] = lk.jointValue;
      }
    });
    return block;
  }

  showFrames(on) {
    for (const a of this.frames) {
      a.visible = on;
    }
  }

  dispose() {
    this.group.traverse((o) => {
      if (o.isMesh) {
        o.geometry.dispose();
        if (o.material.map) {
          o.material.map.dispose();
        }
        o.material.dispose();
      }
    });
  }
}
