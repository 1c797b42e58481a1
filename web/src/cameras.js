// cameras.js - the camera panel: one tile per vision sensor of the loaded bodies.
//
// The tiles are laid out now from the bodies' VisionSensor entries (name, link, resolution
// from specValues: width and height are its 5th and 6th numbers in OpenHRP's VisionSensor
// spec); showImage() puts an image into a tile, so when the server starts sending camera
// images (a binary message of its own kind), they only need decoding and handing over here.

export class CameraPanel {
  constructor(container) {
    this.container = container;
    this.tiles = new Map();
  }

  setBodies(bodies) {
    this.container.innerHTML = "";
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
        const ctx = canvas.getContext("2d");
        ctx.fillStyle = "#0b0d10";
        ctx.fillRect(0, 0, w, h);
        ctx.fillStyle = "#6b7480";
        ctx.font = `${Math.round(h / 12)}px sans-serif`;
        ctx.textAlign = "center";
        ctx.fillText("no image yet", w / 2, h / 2);
        const cap = document.createElement("figcaption");
        cap.textContent = `${key} (${w}x${h}) · no image yet`;
        tile.append(canvas, cap);
        this.container.appendChild(tile);
        this.tiles.set(key, { canvas, cap, label: `${key} (${w}x${h})` });
      }
    }
    if (!this.tiles.size) {
      this.container.textContent = "no vision sensors in the loaded bodies";
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
