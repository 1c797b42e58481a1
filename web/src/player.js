// player.js - which frame is on screen: play, pause, speed, scrubbing, and following a live
// run, plus the timeline controls at the bottom of the page.
//
// Live, the player follows the newest frame until the user pauses or scrubs; "live" follows
// again. Playing advances the simulated time by wall time x speed and shows the last frame at
// or before it; at the end of a replay it stops, at the end of a live log it follows again.

export class Player {
  constructor(store) {
    this.store = store;
    this.index = 0;
    this.simTime = 0;
    this.playing = false;
    this.follow = false;
    this.speed = 1;
    this.live = false;
    this.onChange = () => {};
  }

  setLive(live) {
    this.live = live;
    this.follow = live;
    this.playing = false;
  }

  reset() {
    this.index = 0;
    this.simTime = 0;
  }

  play() {
    const s = this.store;
    if (s.count && this.index >= s.count - 1 && !this.live) {
      this.index = 0;  // replay from the start
    }
    this.simTime = s.count ? s.times[this.index] : 0;
    this.playing = true;
    this.follow = false;
    this.onChange();
  }

  pause() {
    this.playing = false;
    this.follow = false;
    this.onChange();
  }

  goLive() {
    this.follow = true;
    this.playing = false;
    this.onChange();
  }

  seek(i) {
    const s = this.store;
    this.index = Math.max(0, Math.min(s.count - 1, Math.round(i)));
    this.simTime = s.count ? s.times[this.index] : 0;
    this.playing = false;
    this.follow = false;
    this.onChange();
  }

  // advance by dt wall seconds; returns true if the frame on screen changed
  tick(dt) {
    const s = this.store;
    const before = this.index;
    if (!s.count) {
      this.index = 0;
      return false;
    }
    if (this.follow) {
      this.index = s.count - 1;
    } else if (this.playing) {
      this.simTime += dt * this.speed;
      this.index = s.indexAt(this.simTime);
      if (this.index >= s.count - 1 && this.simTime >= s.times[s.count - 1]) {
        if (this.live) {
          this.follow = true;
        } else {
          this.playing = false;
        }
        this.onChange();
      }
    }
    this.index = Math.min(this.index, s.count - 1);
    return this.index !== before;
  }
}

// the controls: play/pause, live, speed, the slider and the time read-outs
export class TimelineUI {
  constructor(player, els) {
    this.player = player;
    this.els = els;
    els.play.addEventListener("click", () => {
      if (player.playing) {
        player.pause();
      } else {
        player.play();
      }
    });
    els.live.addEventListener("click", () => player.goLive());
    els.speed.addEventListener("change", () => {
      player.speed = parseFloat(els.speed.value) || 1;
    });
    els.slider.addEventListener("input", () => player.seek(parseInt(els.slider.value, 10)));
    window.addEventListener("keydown", (e) => {
      if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") {
        return;
      }
      if (e.key === " ") {
        els.play.click();
        e.preventDefault();
      } else if (e.key === "ArrowRight") {
        player.seek(player.index + 1);
      } else if (e.key === "ArrowLeft") {
        player.seek(player.index - 1);
      }
    });
    player.onChange = () => this.update();
  }

  update(extra) {
    const { player: p, els } = this;
    const s = p.store;
    const set = (el, key, value) => {
      if (el[key] !== value) {
        el[key] = value;
      }
    };
    set(els.play, "textContent", p.playing ? "❚❚" : "▶");
    set(els.play, "title", p.playing ? "pause (space)" : "play (space)");
    set(els.live, "hidden", !p.live);
    if (els.live.classList.contains("on") !== p.follow) {
      els.live.classList.toggle("on", p.follow);
    }
    set(els.slider, "max", String(Math.max(0, s.count - 1)));
    set(els.slider, "value", String(p.index));
    const t = s.count ? s.times[p.index] : 0;
    const end = s.count ? s.times[s.count - 1] : 0;
    set(els.time, "textContent", `t = ${t.toFixed(3)} s`);
    set(els.frame, "textContent", `frame ${s.count ? p.index + 1 : 0} / ${s.count}` +
      (extra && extra.total && extra.total > s.count ? ` (loading ${extra.total})` : "") +
      ` · end ${end.toFixed(3)} s`);
  }
}
