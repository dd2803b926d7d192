/*
 * QWOP adapter: injected into the game page before any page script runs (Playwright
 * add_init_script, or CDP Page.addScriptToEvaluateOnNewDocument for Selenium).
 *
 * It finds the game object without touching the game's source or its minified names:
 * the game object is the one that gets a property `m_world` assigned while it has a
 * method `create_player` (the reference README's object model). A one-shot setter on
 * Object.prototype notices that assignment and is removed as soon as the game is found.
 * Everything else is read through the documented property names only.
 *
 * API on window.__qwopAdapter (see VERSION; every call returns plain JSON or base64):
 *   health()                 -> what was found, mode, counters, host check
 *   start()                  -> the first click (firstClick, scoreTime 0, intro destroyed)
 *   run(masks, stopOnEnd)    -> lock-step: one update per mask, returns base64 records
 *   reset(mask)              -> the original's reset() with `mask` held, returns one record
 *   state()                  -> base64 record of the current state (event -1)
 *   initial()                -> base64 record of the state at page load, before any update
 *   setKeys(mask)            -> set QDown..PDown
 *   setScoreTime(t)          -> set scoreTime (a recording's game time at page load)
 *   hold(flag)               -> hold back (true) or release (false) the page's own updates
 *   drain()                  -> real-time: base64 records of every update since the last drain
 *   stream(flag)             -> real-time, direct channel only: from now on push each update's
 *                               record to the harness as it is written (true), or stop (false);
 *                               answers the records not yet drained, like drain()
 *   clock()                  -> {timeOrigin, now}: the page clock (ms) that records' wall_ms use
 *   renderFrames(n)          -> resolves after n animation frames (the canvas shows the state)
 *
 * The same calls are served on a direct WebSocket channel when the harness gives one
 * (config.channel), with records as binary instead of base64.
 *
 * The original's page runs updates from the moment the game object exists, long before its
 * assets have loaded and the runner is built; those updates touch no physics (no runner, no
 * step before the first click). The adapter lets them run but records nothing until the
 * runner exists (counted as preRunnerUpdates in health()), so no record shows a half-built
 * world; the initial state is the one just before the first update with the runner built.
 * Whatever the adapter does inside the page's loop is guarded: an error there is kept in
 * health().errors and never breaks the page.
 *
 * The parts, joints, key bits, event codes, record layout and flag bits come from the
 * harness's spec (sim_env/spec.json), given to the page as window.__QWOP_SPEC__ before this
 * script runs. A record is RECORD_SIZE float64: the spec's record_header fields (update index
 * since the runner was built; event: a key mask for an update, reset_base + mask for reset()
 * with mask held, -1 for no update; flags; scoreTime; score; wall time in ms,
 * performance.now()), then every part's state_columns (x, y, angle, vx, vy, omega) in the
 * order of the spec's parts.
 */
(() => {
  "use strict";
  if (window.__qwopAdapter) return;
  const VERSION = "2.2.0";
  const SPEC = window.__QWOP_SPEC__;
  if (!SPEC) throw new Error("QWOP adapter: window.__QWOP_SPEC__ is missing (inject sim_env.spec.for_page() first)");
  const PARTS = SPEC.parts;
  const JOINTS = SPEC.joints;
  if (SPEC.state_columns.join() !== "x,y,angle,vx,vy,omega") throw new Error("QWOP adapter: unknown state columns");
  // The game object's property for each flag of the spec (the reference's object model).
  const FLAG_PROPERTY = { fallen: "fallen", game_ended: "gameEnded", jump_landed: "jumpLanded", jumped: "jumped",
                          pause: "pause", first_click: "firstClick" };
  const FLAGS = Object.keys(SPEC.flags).map((k) => [FLAG_PROPERTY[k], SPEC.flags[k]]);
  const KEYS = Object.keys(SPEC.keys).map((k) => [k + "Down", SPEC.keys[k]]);  // QDown .. PDown
  const RESET_BASE = SPEC.events.reset_base;
  const DT = 1 / SPEC.updates_per_second;
  const FIELD = {};
  SPEC.record_header.forEach((name, i) => { FIELD[name] = i; });
  // Every property of the game object the adapter relies on (the reference's object model).
  const REQUIRED = ["update", "reset", "QDown", "WDown", "ODown", "PDown", "scoreTime", "score", "fallen",
                    "gameEnded", "jumped", "jumpLanded", "pause", "firstClick", "doneLoading"];
  const HEADER = SPEC.record_header.length;
  const NCOL = SPEC.state_columns.length;
  const RECORD_SIZE = HEADER + PARTS.length * NCOL;
  const cfg = Object.assign({ mode: "lockstep", ringCapacity: 1 << 16 }, window.__QWOP_ADAPTER_CONFIG__ || {});

  let game = null;
  let held = cfg.mode === "lockstep";
  let inside = 0;        // > 0 while the adapter itself drives the game
  let resetDepth = 0;    // > 0 inside reset()
  let updateIndex = 0;   // updates run since the runner was built
  let preRunnerUpdates = 0;  // page updates that ran before the runner existed
  let heldUpdates = 0;   // page updates held back
  let heldResets = 0;
  const seen = [];       // objects that got m_world, described for diagnostics
  let initial = null;    // the state before the first update (page load)
  const errors = [];

  // Real-time ring buffer.
  const ring = new Float64Array(cfg.ringCapacity * RECORD_SIZE);
  let ringWrite = 0;     // records written in total
  let ringRead = 0;      // records drained in total
  // Streaming: each record is also pushed on the channel as soon as its update has run, so the
  // harness learns of an update within a millisecond without polling (a poll is a task on the
  // page's main thread, which delays the page's frames).
  let streaming = false;
  let pushSocket = null;
  let pushed = 0;

  function describe(obj) {
    const keys = [];
    for (const k in obj) { keys.push(k); if (keys.length >= 40) break; }
    return { constructor: obj && obj.constructor ? String(obj.constructor.name || "?") : "?", keys: keys };
  }

  function body(name) {
    return game[name]._components.get("physicsBody", false).body;
  }

  // The runner exists once every part has its physics body and the last joint is made. The
  // full check runs once per build of the runner (a reset makes a new last joint).
  let readyAnkle = null;
  function runnerReady() {
    if (!game || game.rightAnkle == null) return false;
    if (game.rightAnkle === readyAnkle) return true;
    for (let i = 0; i < PARTS.length; i++) {
      const p = game[PARTS[i]];
      if (!p || !p._components) return false;
      const c = p._components.get("physicsBody", false);
      if (!c || !c.body) return false;
    }
    readyAnkle = game.rightAnkle;
    return true;
  }

  function guarded(fn) {
    try { fn(); } catch (e) { if (errors.length < 50) errors.push(String(e && e.stack || e)); }
  }

  function maskOf(g) {
    let m = 0;
    for (let i = 0; i < KEYS.length; i++) if (g[KEYS[i][0]]) m |= KEYS[i][1];
    return m;
  }

  function flagsOf(g) {
    let f = 0;
    for (let i = 0; i < FLAGS.length; i++) if (g[FLAGS[i][0]]) f |= FLAGS[i][1];
    return f;
  }

  function writeRecord(out, off, event) {
    out[off + FIELD.update_index] = updateIndex;
    out[off + FIELD.event] = event;
    out[off + FIELD.flags] = flagsOf(game);
    out[off + FIELD.score_time] = game.scoreTime;
    out[off + FIELD.score] = game.score;
    out[off + FIELD.wall_ms] = performance.now();
    let o = off + HEADER;
    for (let i = 0; i < PARTS.length; i++) {
      const b = body(PARTS[i]);
      const p = b.getPosition();
      const v = b.getLinearVelocity();
      out[o] = p.x; out[o + 1] = p.y; out[o + 2] = b.getAngle();
      out[o + 3] = v.x; out[o + 4] = v.y; out[o + 5] = b.m_angularVelocity;
      o += NCOL;
    }
  }

  function toBase64(f64) {
    const bytes = new Uint8Array(f64.buffer, f64.byteOffset, f64.byteLength);
    let s = "";
    const chunk = 0x8000;
    for (let i = 0; i < bytes.length; i += chunk) s += String.fromCharCode.apply(null, bytes.subarray(i, i + chunk));
    return btoa(s);
  }

  function setKeys(mask) {
    for (let i = 0; i < KEYS.length; i++) game[KEYS[i][0]] = !!(mask & KEYS[i][1]);
  }

  function capture(g) {
    game = g;
    delete Object.prototype.m_world;  // the trap has done its job
    const origUpdate = g.update;
    const origReset = g.reset;
    g.update = function (dt) {
      if (held && !inside) { heldUpdates++; return undefined; }
      if (!runnerReady()) { preRunnerUpdates++; return origUpdate.call(this, dt); }
      if (initial === null) guarded(() => { const s = new Float64Array(RECORD_SIZE); writeRecord(s, 0, -1); initial = s; });
      const mask = maskOf(this);
      const event = resetDepth > 0 ? RESET_BASE + mask : mask;
      const r = origUpdate.call(this, dt);
      updateIndex++;
      if (!inside) {
        guarded(() => {
          const slot = ringWrite % cfg.ringCapacity;
          writeRecord(ring, slot * RECORD_SIZE, event);
          ringWrite++;
          if (streaming && pushSocket && pushSocket.readyState === 1) {
            // [-1, record]: -1 tells a push from a call's reply, whose first value (the dropped
            // count) is never negative.
            const msg = new Float64Array(1 + RECORD_SIZE);
            msg[0] = -1;
            msg.set(ring.subarray(slot * RECORD_SIZE, (slot + 1) * RECORD_SIZE), 1);
            pushSocket.send(msg.buffer);
            ringRead = ringWrite;
            pushed++;
          }
        });
      }
      return r;
    };
    g.reset = function () {
      if (held && !inside) { heldResets++; return undefined; }
      resetDepth++;
      try { return origReset.apply(this, arguments); } finally { resetDepth--; }
    };
  }

  Object.defineProperty(Object.prototype, "m_world", {
    configurable: true,
    enumerable: false,
    get() { return undefined; },
    set(v) {
      Object.defineProperty(this, "m_world", { value: v, writable: true, configurable: true, enumerable: true });
      try {
        if (seen.length < 20) seen.push(describe(this));
        if (!game && typeof this.create_player === "function") capture(this);
      } catch (e) {
        errors.push(String(e && e.stack || e));
      }
    },
  });

  function need() {
    if (!game) {
      throw new Error("QWOP adapter: the game object was not found (no object with create_player got m_world). " +
                      "Objects that got m_world: " + JSON.stringify(seen));
    }
    if (!runnerReady()) throw new Error("QWOP adapter: the runner is not built yet (the game is still loading)");
  }

  function missingProperties() {
    const missing = REQUIRED.filter((k) => !(k in game));
    for (const j of JOINTS) if (game[j] == null) missing.push(j);
    for (const p of PARTS) {
      const part = game[p];
      let b = null;
      try { b = part && part._components && part._components.get("physicsBody", false).body; } catch (e) { b = null; }
      if (!b) { missing.push(p + "._components.get('physicsBody').body"); continue; }
      for (const m of ["getPosition", "getAngle", "getLinearVelocity", "getWorldCenter"]) {
        if (typeof b[m] !== "function") missing.push(p + ".body." + m);
      }
      if (typeof b.m_angularVelocity !== "number") missing.push(p + ".body.m_angularVelocity");
    }
    return missing;
  }

  // Lock-step: the page's animation frames are held back too once the runner exists, so the
  // page's renderer (software WebGL in a headless browser) does not occupy the main thread
  // between calls; renderFrames(n) lets n frames through when a picture is wanted.
  const realRAF = window.requestAnimationFrame.bind(window);
  const realCAF = window.cancelAnimationFrame.bind(window);
  const heldFrames = new Map();  // fake id -> callback
  let nextHeldId = -1;
  let rendering = 0;             // > 0 while renderFrames lets frames through
  let heldFrameCount = 0;
  function holdingFrames() { return held && rendering === 0 && runnerReady(); }
  window.requestAnimationFrame = function (cb) {
    if (!holdingFrames()) return realRAF(cb);
    const id = nextHeldId--;
    heldFrames.set(id, cb);
    heldFrameCount++;
    return id;
  };
  window.cancelAnimationFrame = function (id) {
    if (heldFrames.has(id)) heldFrames.delete(id); else realCAF(id);
  };
  function releaseFrames() {
    const cbs = Array.from(heldFrames.values());
    heldFrames.clear();
    for (const cb of cbs) realRAF(cb);
  }

  function drainRing() {
    const available = ringWrite - ringRead;
    const dropped = Math.max(0, available - cfg.ringCapacity);
    const start = ringRead + dropped;
    const n = ringWrite - start;
    const out = new Float64Array(n * RECORD_SIZE);
    for (let i = 0; i < n; i++) {
      const slot = (start + i) % cfg.ringCapacity;
      out.set(ring.subarray(slot * RECORD_SIZE, (slot + 1) * RECORD_SIZE), i * RECORD_SIZE);
    }
    ringRead = ringWrite;
    return { records: out, dropped: dropped };
  }

  // The calls; those that return states give a Float64Array of records (and a dropped count).
  const calls = {
    health() {
      const h = {
        version: VERSION, mode: cfg.mode, found: !!game, held: held, updates: updateIndex,
        heldUpdates: heldUpdates, heldResets: heldResets, heldFrames: heldFrameCount,
        preRunnerUpdates: preRunnerUpdates, host: window.location.host,
        hostOk: /foddy/i.test(window.location.host), seen: seen, errors: errors,
        recorded: ringWrite, drained: ringRead, channel: channelState, streaming: streaming, pushed: pushed,
        sound: !window.Howler ? "none" : (window.Howler.silent ? "silent stand-in" : "howler.js"),
      };
      if (game) {
        h.doneLoading = !!game.doneLoading; h.firstClick = !!game.firstClick;
        h.hasWorld = !!game.m_world; h.runner = runnerReady();
        h.parts = PARTS.filter((p) => !!game[p]);
        h.missing = h.doneLoading ? missingProperties() : REQUIRED.filter((k) => !(k in game));
      }
      return h;
    },
    start() {
      need();
      game.firstClick = true;
      game.scoreTime = 0;
      if (game.intro && typeof game.intro.destroy === "function") {
        try { game.intro.destroy(); } catch (e) { errors.push(String(e)); }
        game.intro = null;
      }
      return true;
    },
    hold(flag) { held = !!flag; if (!held) releaseFrames(); return held; },
    // Lock-step replay of a recording: the game time the recorded page had counted at load.
    setScoreTime(t) { need(); game.scoreTime = +t; return game.scoreTime; },
    setKeys(mask) { need(); setKeys(mask); return mask; },
    run(masks, stopOnEnd) {
      need();
      const n = masks.length;
      const out = new Float64Array(n * RECORD_SIZE);
      let done = 0;
      inside++;
      try {
        for (let t = 0; t < n; t++) {
          setKeys(masks[t]);
          game.update(DT);
          writeRecord(out, t * RECORD_SIZE, masks[t]);
          done++;
          if (stopOnEnd && game.gameEnded) break;
        }
      } finally { inside--; }
      return { records: done === n ? out : out.subarray(0, done * RECORD_SIZE) };
    },
    reset(mask) {
      need();
      setKeys(mask);
      const out = new Float64Array(RECORD_SIZE);
      inside++;
      try { game.reset(); } finally { inside--; }
      writeRecord(out, 0, RESET_BASE + mask);
      return { records: out };
    },
    state() {
      need();
      const out = new Float64Array(RECORD_SIZE);
      writeRecord(out, 0, -1);
      return { records: out };
    },
    initial() {
      need();
      if (initial === null) { initial = new Float64Array(RECORD_SIZE); writeRecord(initial, 0, -1); }
      return { records: initial };
    },
    drain() { return drainRing(); },
    stream(flag) {
      if (flag && !(pushSocket && pushSocket.readyState === 1)) throw new Error("stream needs the direct channel");
      streaming = !!flag;
      return drainRing();
    },
    clock() { return { timeOrigin: performance.timeOrigin, now: performance.now() }; },
    renderFrames(n) {
      rendering++;
      releaseFrames();
      return new Promise((resolve) => {
        let left = Math.max(1, n | 0);
        const tick = () => {
          if (--left <= 0) { rendering--; resolve(true); } else realRAF(tick);
        };
        realRAF(tick);
      });
    },
  };

  // Through page.evaluate / execute_script: records as base64 (JSON carries no binary).
  const api = { VERSION: VERSION, PARTS: PARTS, RECORD_SIZE: RECORD_SIZE };
  for (const name of Object.keys(calls)) {
    api[name] = function () {
      const r = calls[name].apply(null, arguments);
      if (r && r.records instanceof Float64Array) {
        return { n: r.records.length / RECORD_SIZE, dropped: r.dropped || 0, data: toBase64(r.records) };
      }
      return r;
    };
  }

  // The direct channel: a WebSocket to the harness on loopback. A round trip through the
  // browser's automation protocol costs milliseconds here; this one costs well under one.
  // Requests are JSON {m: call, a: [args]}; replies are binary for records (one float64
  // dropped count, then the records) and JSON {r: result} or {error: message} otherwise.
  let channelState = cfg.channel ? "connecting" : "off";
  function openChannel(url) {
    let ws;
    try { ws = new WebSocket(url); } catch (e) { channelState = "failed: " + e; return; }
    ws.binaryType = "arraybuffer";
    ws.onopen = () => { channelState = "open"; pushSocket = ws; };
    ws.onclose = () => { channelState = "closed"; streaming = false; if (pushSocket === ws) pushSocket = null; };
    ws.onerror = () => { channelState = "error"; };
    ws.onmessage = (ev) => {
      let req;
      try { req = JSON.parse(ev.data); } catch (e) { ws.send(JSON.stringify({ error: "bad request: " + e })); return; }
      const reply = (r) => {
        if (r && r.records instanceof Float64Array) {
          const buf = new Float64Array(1 + r.records.length);
          buf[0] = r.dropped || 0;
          buf.set(r.records, 1);
          ws.send(buf.buffer);
        } else {
          ws.send(JSON.stringify({ r: r === undefined ? null : r }));
        }
      };
      const fail = (e) => ws.send(JSON.stringify({ error: String(e && e.message || e) }));
      try {
        const fn = calls[req.m];
        if (!fn) throw new Error("no adapter call " + req.m);
        const r = fn.apply(null, req.a || []);
        if (r && typeof r.then === "function") r.then(reply, fail); else reply(r);
      } catch (e) { fail(e); }
    };
  }
  if (cfg.channel) openChannel(cfg.channel);

  window.__qwopAdapter = api;
})();
