/*
 * An open stand-in for the original QWOP page, for tests: a small running game with the
 * same object model as the original (see ../../README.md, "Testing without the
 * original"). It is not QWOP's code and not exact QWOP physics: its physics is planck.js,
 * its layout comes from window.__STANDIN_DATA__ (written by browser_env.standin from the
 * simulator's public constants). What it shares with the original is what an adapter can
 * see: a game object created once during loading that gets `m_world` assigned and has
 * `create_player`; the part and joint properties; `_components.get("physicsBody", false).body`
 * with getPosition/getAngle/getLinearVelocity/getWorldCenter/m_angularVelocity; QDown..PDown,
 * update(dt), reset() (which runs update(1/30) itself), firstClick, doneLoading, intro,
 * scoreTime, score, fallen, gameEnded, jumped, jumpLanded, pause; keyboard bindings for
 * Q W O P R (and space after the end); a canvas; a fixed-timestep page loop; and the
 * domain lock (the engine shuts down unless the host name contains "foddy").
 * Like the original's page it runs updates from the moment the game object exists, before
 * its assets have loaded and the runner is built, and it plays its sounds through howler.js
 * 1.x's Howl (play, loop, rate, volume, pos3d, pause, unload). BEHAVIOURS.md beside this
 * file lists what it models of the original and what it does not.
 */
(() => {
  "use strict";
  const pl = window.planck;
  const DATA = window.__STANDIN_DATA__;
  const Vec2 = pl.Vec2;
  const DT = 1 / 30;
  const TILE_Y = 10.74275;

  class Components {
    constructor(map) { this._map = map; }
    get(name, create) { return this._map[name] || null; }
  }
  class Sprite {
    constructor(name, body) { this.name = name; this._components = new Components({ physicsBody: { body: body } }); }
  }
  class Intro {
    constructor() { this.visible = true; }
    destroy() { this.visible = false; }
  }

  class StandinGame {
    constructor() {
      this.doneLoading = false;
      this.firstClick = false;
      this.intro = new Intro();
      this.QDown = false; this.WDown = false; this.ODown = false; this.PDown = false;
      this.scoreTime = 0; this.score = 0;
      this.fallen = false; this.gameEnded = false; this.jumped = false; this.jumpLanded = false;
      this.pause = false;
      this.dead = false;
      this._log = [];
      this._inReset = 0;
      this.cameraX = -200;
      this.world_camera = { get_pos: () => ({ x: this.cameraX, y: 0 }) };
      this._own = {};  // the stand-in's own references to its bodies (for its debug dump)
      this.m_world = new pl.World({ gravity: Vec2(0, 10) });
      this.m_world.on("begin-contact", (c) => this._beginContact(c));
      this.tiles = [];
      this.rightAnkle = null;  // the runner is built once the assets have loaded
      this.music = null;
      this.speeds = [];
    }

    // After the asset bundle loaded (the original's pack_loaded): world, runner, sound.
    packLoaded() {
      for (let i = 0; i < 3; i++) {
        const b = this.m_world.createBody({ type: "static", position: Vec2(i * 32, TILE_Y) });
        b.createFixture(pl.Box(16, 1.6), { friction: 0.2, density: 30 });
        b.setUserData("track");
        this.tiles.push(b);
      }
      const block = this.m_world.createBody({ type: "static", position: Vec2(-39.99625, 2.10625) });
      block.createFixture(pl.Box(6.275, 7.475), { friction: 0.2 });
      this.create_player();
      // A silent one-sample WAV, played in a loop like the original's music.
      const wav = "data:audio/wav;base64,UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQIAAACAgA==";
      const self = this;
      new window.Howl({
        urls: [wav],
        onload: function () { self.music = this; this.loop(true); this.play(); this.rate(1); this.volume(0); this.pos3d(0); },
        onloaderror: () => console.error("standin: sound failed to load"),
      });
      this.doneLoading = true;
    }

    shutdown() { this.dead = true; }

    create_player() {
      const w = this.m_world;
      const h = DATA.hurdle;
      this.hurdleBase = w.createBody({ type: "dynamic", position: Vec2(h.base[0], h.base[1]), awake: false });
      this.hurdleBase.createFixture(pl.Box(h.baseHalf[0], h.baseHalf[1]),
        { density: 1, friction: 0.2, filterCategoryBits: 4, filterMaskBits: 65529 });
      if (!/foddy/i.test(window.location.host)) this.shutdown();  // the domain lock
      this.hurdleTop = w.createBody({ type: "dynamic", position: Vec2(h.top[0], h.top[1]), awake: false });
      this.hurdleTop.createFixture(pl.Box(h.topHalf[0], h.topHalf[1]),
        { density: 1, friction: 0.2, filterCategoryBits: 4, filterMaskBits: 65531 });
      this.hurdleJoint = w.createJoint(pl.RevoluteJoint({ enableLimit: true, lowerAngle: 0, upperAngle: 0 },
        this.hurdleTop, this.hurdleBase, this.hurdleTop.getWorldPoint(Vec2(h.anchorTop[0], h.anchorTop[1]))));
      this._own = {};
      for (const p of DATA.parts) {
        const b = w.createBody({ type: "dynamic", position: Vec2(p.x, p.y), angle: p.angle });
        b.createFixture(pl.Box(p.hx, p.hy),
          { density: p.density, friction: p.friction, filterCategoryBits: 2, filterMaskBits: 65533 });
        b.setUserData(p.name);
        this[p.name] = new Sprite(p.name, b);
        this._own[p.name] = b;
      }
      this._joints = {};
      for (const j of DATA.joints) {
        const a = this._own[j.bodyA], b = this._own[j.bodyB];
        const joint = w.createJoint(pl.RevoluteJoint({
          enableLimit: true, lowerAngle: j.lower, upperAngle: j.upper,
          enableMotor: j.motor, maxMotorTorque: j.maxMotorTorque, motorSpeed: 0,
        }, a, b, a.getWorldPoint(Vec2(j.anchorA[0], j.anchorA[1]))));
        this[j.name] = joint;
        this._joints[j.name] = joint;
      }
    }

    _destroyPlayer() {
      const w = this.m_world;
      for (const name in this._joints) w.destroyJoint(this._joints[name]);
      w.destroyJoint(this.hurdleJoint);
      w.destroyBody(this.hurdleBase);
      w.destroyBody(this.hurdleTop);
      for (const name in this._own) w.destroyBody(this._own[name]);
    }

    _beginContact(c) {
      const a = c.getFixtureA().getBody().getUserData();
      const b = c.getFixtureB().getBody().getUserData();
      const other = a === "track" ? b : (b === "track" ? a : null);
      if (other === null) return;
      const wm = c.getWorldManifold(null);
      let x = 0;
      if (wm && wm.points) for (const p of wm.points) if (p && p.x > x) x = p.x;
      if (["head", "leftArm", "rightArm", "leftForearm", "rightForearm"].indexOf(other) >= 0 && !this.fallen) {
        this.fallen = true;
        if (this.jumped && !this.jumpLanded) { this.jumpLanded = true; this.score = Math.round(x) / 10; }
      }
      if (other === "leftFoot" && !this.fallen && !this.gameEnded) {
        if (!this.jumped && x > 989) this.jumped = true;
        if (this.jumped && !this.jumpLanded) { if (x > 1000) this.jumpLanded = true; this.score = Math.round(x) / 10; }
      }
    }

    _endGame() {
      this.gameEnded = true;
      for (const n of ["leftHip", "rightHip"]) { this[n].enableMotor(false); this[n].setMotorSpeed(0); }
      for (const n of ["leftKnee", "rightKnee", "leftShoulder", "rightShoulder"]) {
        this[n].enableMotor(false); this[n].enableLimit(false);
      }
    }

    update(dt) {
      if (this.dead) return;
      if (!this.pause && !this.gameEnded) this.scoreTime += dt;
      const cell = Math.floor(this.cameraX / 640);
      for (let i = 0; i < this.tiles.length; i++) {
        const x = (cell + i) * 32;
        if (x !== this.tiles[i].getPosition().x) this.tiles[i].setPosition(Vec2(x, TILE_Y));
      }
      if (this.rightAnkle == null) { this.preRunnerUpdates = (this.preRunnerUpdates || 0) + 1; return; }
      const head = this._own.head;
      // Music volume follows the head's speed, as in the original.
      this.speeds.push(head.getLinearVelocity().x);
      if (this.speeds.length > 30) this.speeds.shift();
      if (this.music) this.music.volume(0);
      if (!this.fallen) head.applyTorque(-4 * (head.getAngle() + 0.2), true);
      if (this.QDown) {
        this.rightHip.setMotorSpeed(2.5); this.leftHip.setMotorSpeed(-2.5);
        this.rightShoulder.setMotorSpeed(-2); this.leftShoulder.setMotorSpeed(2);
      } else if (this.WDown) {
        this.rightHip.setMotorSpeed(-2.5); this.leftHip.setMotorSpeed(2.5);
        this.rightShoulder.setMotorSpeed(2); this.leftShoulder.setMotorSpeed(-2);
      } else {
        this.rightHip.setMotorSpeed(0); this.leftHip.setMotorSpeed(0);
        this.rightShoulder.setMotorSpeed(0); this.leftShoulder.setMotorSpeed(0);
      }
      if (this.ODown) {
        this.rightKnee.setMotorSpeed(2.5); this.leftKnee.setMotorSpeed(-2.5);
        this.leftHip.setLimits(-1, 1); this.rightHip.setLimits(-1.3, 0.7);
      } else if (this.PDown) {
        this.rightKnee.setMotorSpeed(-2.5); this.leftKnee.setMotorSpeed(2.5);
        this.leftHip.setLimits(-1.5, 0.5); this.rightHip.setLimits(-0.8, 1.2);
      } else {
        this.rightKnee.setMotorSpeed(0); this.leftKnee.setMotorSpeed(0);
      }
      if (this.firstClick && !this.pause) this.m_world.step(0.04, 5, 5);
      if (this.firstClick) {
        const c = this._own.torso.getWorldCenter();
        if (c.y >= -5 && !this.fallen) this.cameraX = (c.x - 14) * 20;
        this.cameraX = Math.min(20933, Math.max(-1200, this.cameraX));
      }
      if (!this.jumpLanded) this.score = Math.round(this._own.torso.getWorldCenter().x) / 10;
      if (this.jumpLanded && !this.gameEnded) { this.pause = true; this._endGame(); }
      else if (this.fallen && !this.gameEnded) this._endGame();
      // The stand-in's own log of what each update saw (for tests).
      if (this._log.length < 20000) {
        this._log.push([(this.QDown ? 1 : 0) | (this.WDown ? 2 : 0) | (this.ODown ? 4 : 0) | (this.PDown ? 8 : 0),
                        this._inReset, this.debugState()]);
      }
    }

    reset() {
      if (this.dead) return;
      this.score = 0; this.scoreTime = 0;
      this._destroyPlayer();
      this.cameraX = -280;
      this.m_world.setGravity(Vec2(0, 10));
      this.create_player();
      this.fallen = false; this.gameEnded = false; this.jumped = false; this.jumpLanded = false; this.pause = false;
      this._inReset = 1;
      try { this.update(1 / 30); } finally { this._inReset = 0; }
    }

    // The stand-in's own view of its state, from its own body references.
    debugState() {
      return DATA.order.map((n) => {
        const b = this._own[n];
        const p = b.getPosition(), v = b.getLinearVelocity();
        return [p.x, p.y, b.getAngle(), v.x, v.y, b.getAngularVelocity()];
      });
    }
  }

  const game = new StandinGame();
  window.__standinDebug = () => ({ state: game.debugState(), dead: game.dead, scoreTime: game.scoreTime,
                                   keys: [game.QDown, game.WDown, game.ODown, game.PDown], log: game._log });

  // Input bindings.
  const keyFlag = { q: "QDown", w: "WDown", o: "ODown", p: "PDown" };
  window.addEventListener("keydown", (e) => {
    const f = keyFlag[(e.key || "").toLowerCase()];
    if (f) { game[f] = true; e.preventDefault(); }
  });
  window.addEventListener("keyup", (e) => {
    const k = (e.key || "").toLowerCase();
    const f = keyFlag[k];
    if (f) { game[f] = false; e.preventDefault(); }
    if (k === "r") game.reset();
    if (k === " " && game.gameEnded) game.reset();
  });

  // Canvas and page loop (fixed timestep, at most 0.25 s per frame).
  const host = document.getElementById("gameContent") || document.body;
  const canvas = document.createElement("canvas");
  canvas.width = 640; canvas.height = 400;
  host.appendChild(canvas);
  const ctx = canvas.getContext("2d");
  canvas.addEventListener("mousedown", () => {
    if (game.doneLoading && !game.firstClick) {
      game.firstClick = true; game.scoreTime = 0;
      if (game.intro) { game.intro.destroy(); game.intro = null; }
    }
  });

  function draw() {
    ctx.fillStyle = "#e8ecf2"; ctx.fillRect(0, 0, 640, 400);
    const left = game.cameraX / 20;
    ctx.save();
    ctx.scale(20, 20); ctx.translate(-left, 8.5);
    for (let b = game.m_world.getBodyList(); b; b = b.getNext()) {
      const p = b.getPosition();
      ctx.save(); ctx.translate(p.x, p.y); ctx.rotate(b.getAngle());
      for (let f = b.getFixtureList(); f; f = f.getNext()) {
        const v = f.getShape().m_vertices;
        ctx.beginPath(); ctx.moveTo(v[0].x, v[0].y);
        for (let i = 1; i < v.length; i++) ctx.lineTo(v[i].x, v[i].y);
        ctx.closePath();
        const name = b.getUserData();
        ctx.fillStyle = name === "track" ? "#c47848" : (name ? "#2850a0" : "#888");
        ctx.fill();
      }
      ctx.restore();
    }
    ctx.restore();
    ctx.fillStyle = "#000"; ctx.font = "16px sans-serif";
    ctx.fillText(game.doneLoading ? (game.firstClick ? game.score.toFixed(1) + " metres" : "click to begin") : "loading", 10, 20);
  }

  let last = performance.now();
  let acc = 0;
  function frame(now) {
    if (game.dead) return;  // the loop dies with the engine
    acc += Math.min(0.25, (now - last) / 1000);
    last = now;
    while (acc >= DT) { game.update(DT); acc -= DT; }
    draw();
    requestAnimationFrame(frame);
  }

  console.log("standin: loading assets");
  // The page loop already runs while the bundle loads (a little later, so that several
  // updates always run before the runner exists, as in the original).
  fetch("assetbundle.parcel").then((r) => r.text()).then((text) => new Promise((resolve) => {
    setTimeout(() => resolve(text), 300);
  })).then((text) => {
    if (text.indexOf("NEVER-FINISH-LOADING") === 0) { console.log("standin: asset bundle says never finish"); return; }
    game.packLoaded();
    console.log("standin: loaded");
  }).catch((e) => console.error("standin: asset bundle failed: " + e));
  requestAnimationFrame((t) => { last = t; frame(t); });
})();
