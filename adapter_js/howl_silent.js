/*
 * A silent stand-in for howler.js (1.x API, as the original game uses it), for game folders
 * without the user's howler.js. Every Howl and Howler member of howler.js 1.x exists and is
 * chainable where howler's is; sounds report themselves loaded (onload fires) and play
 * nothing. The original calls: new Howl({urls, onload, onend, onloaderror}), play, pause,
 * loop, volume, rate, pos3d, unload.
 */
(() => {
  "use strict";
  if (window.Howl) return;
  let nextId = 1;
  class Howl {
    constructor(options) {
      const o = options || {};
      this._urls = o.urls || o.src || [];
      this._volume = o.volume === undefined ? 1 : o.volume;
      this._loop = !!o.loop;
      this._rate = o.rate === undefined ? 1 : o.rate;
      this._pos3d = [0, 0, -0.5];
      this._muted = false;
      this._loaded = true;
      this._handlers = {};
      for (const ev of ["load", "loaderror", "play", "end", "pause", "stop", "fade"]) {
        if (typeof o["on" + ev] === "function") this.on(ev, o["on" + ev]);
      }
      setTimeout(() => this._emit("load"), 0);  // howler fires onload asynchronously too
    }
    _emit(ev, ...args) {
      for (const fn of (this._handlers[ev] || []).slice()) fn.apply(this, args);
      return this;
    }
    load() { return this; }
    urls(u) { if (u === undefined) return this._urls; this._urls = u; return this; }
    play(sprite, callback) {
      const id = String(nextId++);
      if (typeof sprite === "function") callback = sprite;
      if (typeof callback === "function") setTimeout(() => callback(id), 0);
      return this;
    }
    pause() { return this; }
    stop() { return this; }
    mute() { this._muted = true; return this; }
    unmute() { this._muted = false; return this; }
    volume(v) { if (v === undefined) return this._volume; this._volume = +v; return this; }
    loop(l) { if (l === undefined) return this._loop; this._loop = !!l; return this; }
    rate(r) { if (r === undefined) return this._rate; this._rate = +r; return this; }
    sprite(s) { return s === undefined ? {} : this; }
    pos(p) { return p === undefined ? 0 : this; }
    pos3d(x, y, z) {
      if (x === undefined) return this._pos3d;
      this._pos3d = [+x, y === undefined ? 0 : +y, z === undefined ? -0.5 : +z];
      return this;
    }
    fade(from, to, len, cb) { this._volume = to; if (typeof cb === "function") setTimeout(cb, 0); return this; }
    fadeIn(to, len, cb) { return this.fade(0, to, len, cb); }
    fadeOut(to, len, cb) { return this.fade(this._volume, to, len, cb); }
    on(ev, fn) { (this._handlers[ev] = this._handlers[ev] || []).push(fn); return this; }
    off(ev, fn) {
      if (!fn) delete this._handlers[ev];
      else this._handlers[ev] = (this._handlers[ev] || []).filter((f) => f !== fn);
      return this;
    }
    unload() { this._handlers = {}; this._loaded = false; return null; }
  }
  let volume = 1;
  const Howler = {
    silent: true,  // tells the adapter's health report which sound library the page has
    usingWebAudio: false,
    noAudio: true,
    ctx: null,
    iOSAutoEnable: false,
    volume(v) { if (v === undefined) return volume; volume = +v; return Howler; },
    mute() { return Howler; },
    unmute() { return Howler; },
    codecs() { return true; },
  };
  window.Howl = Howl;
  window.Howler = Howler;
})();
