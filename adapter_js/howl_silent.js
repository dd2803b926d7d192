/*
 * A silent stand-in for howler.js's Howl, which the original game expects on window.
 * Sounds are accepted, report themselves loaded, and play nothing.
 */
(() => {
  "use strict";
  if (window.Howl) return;
  class Howl {
    constructor(options) {
      this._options = options || {};
      this._volume = this._options.volume === undefined ? 1 : this._options.volume;
      const onload = this._options.onload;
      if (typeof onload === "function") setTimeout(() => onload.call(this), 0);
    }
    play() { return 1; }
    pause() { return this; }
    stop() { return this; }
    mute() { return this; }
    loop() { return false; }
    volume(v) { if (v === undefined) return this._volume; this._volume = v; return this; }
    rate() { return 1; }
    seek() { return 0; }
    playing() { return false; }
    duration() { return 0; }
    state() { return "loaded"; }
    on() { return this; }
    once() { return this; }
    off() { return this; }
    fade() { return this; }
    load() { return this; }
    unload() { return null; }
  }
  const Howler = { volume() { return 1; }, mute() { return Howler; }, stop() { return Howler; }, ctx: null, usingWebAudio: false };
  window.Howl = Howl;
  window.Howler = Howler;
})();
