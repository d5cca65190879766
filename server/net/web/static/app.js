// carom's browser client (docs/web.md): the lobby, a table to play or watch, a replay and a
// player's profile, over protocol v1 (docs/protocol.md), msgpack on the game server's websocket.
//
// Everything a player or the server names is put on the page as text (textContent or text
// nodes), never as HTML. No inline script: the page's Content-Security-Policy forbids it.
"use strict";

(() => {
  const MP = window.MessagePack;
  const B = document.body;
  const PAGE = B.dataset.page || "lobby";
  const PAGE_ID = B.dataset.id || "";
  const TABLES = JSON.parse(B.dataset.tables || "{}");
  const DISCIPLINES = (B.dataset.disciplines || "three_cushion").split(",");
  const APP = document.getElementById("app");
  const PROTOCOL = 1;

  // ---------------------------------------------------------------------------------------------
  // Small helpers

  /** An element; strings among the children become text nodes (never HTML). */
  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = String(v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return e;
  }

  function setText(node, text) {
    const s = String(text);
    if (node.textContent !== s) node.textContent = s;
  }

  const store = {
    get(k) {
      try {
        return localStorage.getItem("carom." + k);
      } catch (_) {
        return null;
      }
    },
    set(k, v) {
      try {
        if (v === null || v === undefined) localStorage.removeItem("carom." + k);
        else localStorage.setItem("carom." + k, String(v));
      } catch (_) {
        /* private mode: the seat lasts as long as the page */
      }
    },
  };

  const once = {
    take(k) {
      try {
        const v = sessionStorage.getItem("carom." + k);
        sessionStorage.removeItem("carom." + k);
        return v;
      } catch (_) {
        return null;
      }
    },
    put(k, v) {
      try {
        sessionStorage.setItem("carom." + k, v);
      } catch (_) {
        /* ignore */
      }
    },
  };

  function myName() {
    let n = store.get("name");
    if (!n) {
      n = "Guest " + String(1000 + Math.floor(Math.random() * 9000));
      store.set("name", n);
    }
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // Words on screen: plain sentences, no codes (client/app/words.py does the same).

  const DISCIPLINE_WORDS = {
    three_cushion: "Three-cushion",
    one_cushion: "One-cushion",
    straight_rail: "Straight rail",
    balkline_47_2: "Balkline 47/2",
    balkline_47_1: "Balkline 47/1",
    balkline_71_2: "Balkline 71/2",
    balkline_71_1: "Balkline 71/1",
  };
  const REASONS = {
    distance: "reached the distance",
    equalized: "after the equalizing inning",
    innings_limit: "on the innings limit",
    concede: "the opponent conceded",
    forfeit: "by forfeit",
    no_show: "the opponent did not come back",
    abandoned: "the match was abandoned",
  };
  const PHASES = {
    waiting: "waiting for players",
    lag: "the lag",
    break_choice: "choosing who breaks",
    play: "playing",
    timeout: "time-out",
    over: "finished",
  };
  const ERRORS = {
    no_such_room: "That table no longer exists.",
    bad_password: "Wrong password for that table.",
    room_full: "Both seats at that table are taken.",
    already_in_room: "You are already at a table.",
    not_your_turn: "It is not your turn.",
    balls_moving: "Wait until the balls stop.",
    wrong_phase: "That is not possible at this point of the match.",
    clock_expired: "Your shot clock had run out.",
    already_played: "You have already played your lag stroke.",
    not_a_player: "Spectators cannot do that.",
    bad_field: "The server did not accept that.",
    rate_limited: "Too many requests; slow down a little.",
    internal_error: "The server had a problem; nothing changed, please try again.",
  };
  const CUSHIONS = { top: "right short", bottom: "left short", left: "far long", right: "near long" };

  const discipline = (d) => DISCIPLINE_WORDS[d] || String(d).replace(/_/g, " ");
  const reasonText = (r) => REASONS[r] || String(r).replace(/_/g, " ");

  /** A referee's or the server's sentence as a player should read it. */
  function plain(text, nameOf) {
    let out = String(text || "");
    out = out.replace(/\s*\(?\bR-[A-Z0-9]+(?:-[A-Z0-9]+)*\)?/g, "");
    out = out.replace(/^[a-z]+(?:_[a-z]+)+: /, "");
    out = out.replace(/\b([Ss])eat (\d+)\b/g, (_, s, n) =>
      nameOf ? nameOf(Number(n)) : `${s === "S" ? "P" : "p"}layer ${Number(n) + 1}`,
    );
    out = out.replace(/\b(top|bottom|left|right) cushion/g, (_, c) => `${CUSHIONS[c]} cushion`);
    out = out.replace(/\bnearer the (top|bottom)\b/g, (_, c) => `nearer the ${CUSHIONS[c]} cushion`);
    out = out.replace(/\bwins \((\w+)\)/g, (_, r) => `wins: ${reasonText(r)}`);
    out = out.replace(/\bDraw \((\w+)\)/g, (_, r) => `A draw, ${reasonText(r)}`);
    out = out.replace(/\s+([.,;:])/g, "$1").replace(/\s{2,}/g, " ");
    return out.trim();
  }

  function errorText(err) {
    const msg = String((err && err.message) || "").replace(/^[a-z]+(?:_[a-z]+)+: /, "").trim();
    if (/^[A-Z]/.test(msg)) return plain(msg);
    return ERRORS[err && err.code] || "Something went wrong; please try again.";
  }

  // ---------------------------------------------------------------------------------------------
  // The connection: protocol v1 over the page's own origin (ws:// or wss:// as the page).

  class Link {
    constructor(handlers) {
      this.h = handlers;
      this.ws = null;
      this.nextId = 1;
      this.waiting = new Map();
      this.offset = 0; // server ms − local ms
      this.bestRtt = Infinity;
      this.welcome = null;
      this.tries = 0;
      this.stopped = false;
      this.everOpen = false;
      this.restarting = false;
      this.readyWaiters = [];
      // A page left for another may be kept whole in the browser's back/forward cache with its
      // socket open: the server would go on counting it in its room (a spectator nobody is, a
      // player still at the table). Close on leaving; coming back is a reconnection.
      window.addEventListener("pagehide", (ev) => {
        if (!ev.persisted) return;
        this.stopped = true;
        if (this.ws) this.ws.close(1000);
      });
      window.addEventListener("pageshow", (ev) => {
        if (!ev.persisted || !this.stopped) return;
        this.stopped = false;
        this.open();
      });
    }

    static url() {
      return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/";
    }

    open() {
      let ws;
      try {
        ws = new WebSocket(Link.url());
      } catch (_) {
        this.h.onDown(false);
        this.retry();
        return;
      }
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      ws.onopen = () => {
        this.tries = 0;
        this.greet();
      };
      ws.onmessage = (ev) => {
        if (typeof ev.data === "string") return;
        let msg;
        try {
          msg = MP.decode(new Uint8Array(ev.data));
        } catch (_) {
          return;
        }
        if (msg && typeof msg === "object") this.dispatch(msg);
      };
      ws.onclose = (ev) => {
        if (this.ws !== ws) return;
        this.ws = null;
        const was = this.welcome !== null;
        this.welcome = null;
        for (const w of this.waiting.values()) {
          const err = new Error("Not connected to the game server.");
          err.code = "closed";
          w.reject(err);
        }
        this.waiting.clear();
        if (this.stopped) return;
        if (this.restarting) {
          this.restarting = false; // a new name: say hello again at once, nothing went wrong
          this.open();
          return;
        }
        this.h.onDown(was, ev.code, ev.reason);
        this.retry();
      };
    }

    retry() {
      const delay = Math.min(5000, 500 * 2 ** Math.min(this.tries, 4));
      this.tries += 1;
      setTimeout(() => {
        if (!this.stopped) this.open();
      }, delay);
    }

    restart() {
      if (this.ws) {
        this.restarting = true;
        this.ws.close(1000);
      }
    }

    /** Resolves once the connection is open and greeted (at most ``ms`` from now). */
    whenReady(ms) {
      if (this.welcome) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const err = new Error("Not connected to the game server.");
          err.code = "closed";
          this.readyWaiters = this.readyWaiters.filter((w) => w !== done);
          reject(err);
        }, ms);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        this.readyWaiters.push(done);
      });
    }

    async greet() {
      const token = store.get("token");
      const hello = { t: "hello", v: PROTOCOL, name: myName() };
      if (token) hello.token = token;
      let w;
      try {
        w = await this.request(hello);
      } catch (err) {
        if (err.code === "bad_token") {
          store.set("token", null);
          return this.greet();
        }
        if (err.code !== "closed") this.h.onRefused(errorText(err));
        return;
      }
      store.set("token", w.token);
      store.set("player_id", w.player_id);
      this.welcome = w;
      this.everOpen = true;
      const waiters = this.readyWaiters;
      this.readyWaiters = [];
      for (const done of waiters) done();
      this.clockSample(w._sent, performance.now(), w.server_time_ms);
      this.h.onOpen(w);
      for (let i = 0; i < 4; i++) setTimeout(() => this.ping(), 150 * (i + 1));
    }

    adopt(welcome) {
      store.set("token", welcome.token);
      store.set("player_id", welcome.player_id);
      this.welcome = welcome;
    }

    ping() {
      if (this.ws && this.ws.readyState === 1) this.request({ t: "ping" }).catch(() => {});
    }

    clockSample(sent, received, serverMs) {
      if (typeof serverMs !== "number" || sent === undefined) return;
      const rtt = received - sent;
      if (rtt > this.bestRtt) return;
      this.bestRtt = rtt;
      this.offset = serverMs - (performance.timeOrigin + (sent + received) / 2);
    }

    serverNow() {
      return performance.timeOrigin + performance.now() + this.offset;
    }

    get ready() {
      return this.ws !== null && this.ws.readyState === 1;
    }

    send(msg) {
      const id = this.nextId++;
      msg.id = id;
      if (this.ready) this.ws.send(MP.encode(msg));
      return id;
    }

    /** A request once greeted (waiting up to 5 s for a connection being made). */
    async ask(msg) {
      await this.whenReady(5000);
      return this.request(msg);
    }

    request(msg) {
      return new Promise((resolve, reject) => {
        if (!this.ready) {
          const err = new Error("Not connected to the game server.");
          err.code = "closed";
          reject(err);
          return;
        }
        const sent = performance.now();
        const id = this.send(msg);
        this.waiting.set(id, { resolve, reject, sent });
      });
    }

    dispatch(msg) {
      const w = msg.re !== undefined && msg.re !== null ? this.waiting.get(msg.re) : undefined;
      if (w !== undefined) {
        this.waiting.delete(msg.re);
        if (msg.t === "error") {
          const err = new Error(msg.message);
          err.code = msg.code;
          w.reject(err);
          return;
        }
        msg._sent = w.sent;
        if (msg.t === "pong") {
          this.clockSample(w.sent, performance.now(), msg.server_time_ms);
          w.resolve(msg);
          return;
        }
        w.resolve(msg);
        if (msg.t === "welcome") return;
      }
      this.h.onMessage(msg);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The table: a 2D canvas in the desktop client's look (client/app/render.py).

  const RAIL_WIDTH = 0.13;
  const CUSHION_WIDTH = 0.045;
  const COLOURS = {
    cloth: "#1f5fa8",
    clothEdge: "#184e8e",
    cushion: "#164680",
    rail: "#5c341e",
    railEdge: "#3a2012",
    diamond: "#ece4cd",
    spot: "#cdd6e6",
    background: "#12161c",
  };
  const BALLS = {
    white: ["#ffffff", "#f4f3ec", "#b9b6a8"],
    yellow: ["#fff0a0", "#f2c624", "#9c7a08"],
    red: ["#ff8a80", "#c61c22", "#6a080c"],
  };
  const BALL_ORDER = ["white", "yellow", "red"];

  /** Where a ball is ``t`` seconds after the strike: 16 numbers per segment, closed form. */
  function positionAt(flat, t) {
    const n = flat.length / 16;
    if (n === 0) return null;
    let i = 0;
    while (i + 1 < n && flat[(i + 1) * 16] <= t) i++;
    const o = i * 16;
    const tau = Math.max(0, t - flat[o]);
    const h = 0.5 * tau * tau;
    return [
      flat[o + 1] + flat[o + 4] * tau + flat[o + 7] * h,
      flat[o + 2] + flat[o + 5] * tau + flat[o + 8] * h,
      flat[o + 3] + flat[o + 6] * tau + flat[o + 9] * h,
    ];
  }

  // Orientation (for the marks on the balls), as client/app/motion.py: per segment the rotation
  // vector w0·τ + alpha·τ²/2, composed from the stroke's start, so it is a pure function of t.
  const IDENTITY = [1, 0, 0, 0];
  function qmul(a, b) {
    return [
      a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
      a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
      a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
      a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ];
  }
  function qnorm(q) {
    const n = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
    return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
  }
  function qFromRotvec(v) {
    const angle = Math.hypot(v[0], v[1], v[2]);
    if (angle < 1e-12) return IDENTITY;
    const k = Math.sin(angle / 2) / angle;
    return [Math.cos(angle / 2), v[0] * k, v[1] * k, v[2] * k];
  }
  function qRotate(q, p) {
    const [w, x, y, z] = q;
    const tx = 2 * (y * p[2] - z * p[1]);
    const ty = 2 * (z * p[0] - x * p[2]);
    const tz = 2 * (x * p[1] - y * p[0]);
    return [
      p[0] + w * tx + (y * tz - z * ty),
      p[1] + w * ty + (z * tx - x * tz),
      p[2] + w * tz + (x * ty - y * tx),
    ];
  }
  function segRotvec(flat, o, tau) {
    const h = (tau * tau) / 2;
    return [
      flat[o + 10] * tau + flat[o + 13] * h,
      flat[o + 11] * tau + flat[o + 14] * h,
      flat[o + 12] * tau + flat[o + 15] * h,
    ];
  }

  /** One ball's path: position and orientation at any t (seconds since the strike). */
  class BallPath {
    constructor(flat, q0) {
      this.flat = flat;
      this.n = flat.length / 16;
      this.qs = [q0 || IDENTITY];
      for (let i = 0; i + 1 < this.n; i++) {
        const dt = flat[(i + 1) * 16] - flat[i * 16];
        this.qs.push(qnorm(qmul(qFromRotvec(segRotvec(flat, i * 16, dt)), this.qs[i])));
      }
    }

    pose(t) {
      const p = positionAt(this.flat, t);
      if (!p) return null;
      let i = 0;
      while (i + 1 < this.n && this.flat[(i + 1) * 16] <= t) i++;
      const tau = Math.max(0, t - this.flat[i * 16]);
      p.push(qnorm(qmul(qFromRotvec(segRotvec(this.flat, i * 16, tau)), this.qs[i])));
      return p;
    }
  }

  const MARKS = [
    [1, 0, 0],
    [-1, 0, 0],
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [0, 0, -1],
  ];
  const MARK_COLOURS = { white: "#be1e28", yellow: "#be1e28", red: "#faf5eb" };

  class TableView {
    constructor(canvas) {
      this.canvas = canvas;
      this.ctx = canvas.getContext("2d");
      this.spec = { length: 2.84, width: 1.42, r: 0.03075 };
      this.backdrop = null;
      this.key = "";
      this.drawnOnce = false;
    }

    setTable(name) {
      const t = TABLES[name] || TABLES.match || [2.84, 1.42, 0.03075];
      const spec = { length: t[0], width: t[1], r: t[2] };
      if (spec.length !== this.spec.length || spec.width !== this.spec.width) this.backdrop = null;
      this.spec = spec;
    }

    /** Fit the canvas to its box; portrait boxes get the table upright. */
    fit() {
      const box = this.canvas.getBoundingClientRect();
      const dpr = Math.min(window.devicePixelRatio || 1, 2);
      const w = Math.max(1, Math.round(box.width * dpr));
      const h = Math.max(1, Math.round(box.height * dpr));
      const key = `${w}x${h}x${this.spec.length}x${this.spec.width}`;
      if (key === this.key && this.backdrop) return;
      this.key = key;
      this.canvas.width = w;
      this.canvas.height = h;
      const s = this.spec;
      const outerL = s.length + 2 * RAIL_WIDTH;
      const outerW = s.width + 2 * RAIL_WIDTH;
      this.portrait = h > w * 1.05;
      const [across, down] = this.portrait ? [outerW, outerL] : [outerL, outerW];
      this.scale = Math.min(w / across, h / down);
      this.ox = (w - across * this.scale) / 2;
      this.oy = (h - down * this.scale) / 2;
      this.outerL = outerL;
      this.outerW = outerW;
      this.backdrop = this.buildBackdrop(w, h);
    }

    toScreen(x, y) {
      const k = this.scale;
      if (this.portrait) {
        return [this.ox + (this.outerW - (y + RAIL_WIDTH)) * k, this.oy + (this.outerL - (x + RAIL_WIDTH)) * k];
      }
      return [this.ox + (x + RAIL_WIDTH) * k, this.oy + (this.outerW - (y + RAIL_WIDTH)) * k];
    }

    /** Table coordinates of a point given in CSS pixels relative to the canvas. */
    toTable(cssX, cssY) {
      const box = this.canvas.getBoundingClientRect();
      const px = (cssX * this.canvas.width) / box.width;
      const py = (cssY * this.canvas.height) / box.height;
      const k = this.scale;
      if (this.portrait) {
        return [this.outerL - (py - this.oy) / k - RAIL_WIDTH, this.outerW - (px - this.ox) / k - RAIL_WIDTH];
      }
      return [(px - this.ox) / k - RAIL_WIDTH, this.outerW - (py - this.oy) / k - RAIL_WIDTH];
    }

    /** Screen angle (radians, canvas y down) of a table direction in degrees. */
    screenAngle(deg) {
      const a = (deg * Math.PI) / 180;
      const [x0, y0] = this.toScreen(0, 0);
      const [x1, y1] = this.toScreen(Math.cos(a), Math.sin(a));
      return Math.atan2(y1 - y0, x1 - x0);
    }

    buildBackdrop(w, h) {
      const c = document.createElement("canvas");
      c.width = w;
      c.height = h;
      const g = c.getContext("2d");
      const s = this.spec;
      const k = this.scale;
      g.fillStyle = COLOURS.background;
      g.fillRect(0, 0, w, h);
      const rect = (x0, y0, x1, y1) => {
        const [ax, ay] = this.toScreen(x0, y0);
        const [bx, by] = this.toScreen(x1, y1);
        return [Math.min(ax, bx), Math.min(ay, by), Math.abs(bx - ax), Math.abs(by - ay)];
      };
      const outer = rect(-RAIL_WIDTH, -RAIL_WIDTH, s.length + RAIL_WIDTH, s.width + RAIL_WIDTH);
      // Rails: dark edge, then wood with a grain along the long rails.
      g.fillStyle = COLOURS.railEdge;
      g.fillRect(outer[0] - 3, outer[1] - 3, outer[2] + 6, outer[3] + 6);
      const wood = g.createLinearGradient(outer[0], outer[1], outer[0], outer[1] + outer[3]);
      wood.addColorStop(0, "#6b3d22");
      wood.addColorStop(0.5, "#5c341e");
      wood.addColorStop(1, "#4e2b18");
      g.fillStyle = wood;
      g.fillRect(...outer);
      let seed = 7;
      const rnd = () => {
        seed = (seed * 16807) % 2147483647;
        return seed / 2147483647;
      };
      g.save();
      g.beginPath();
      g.rect(...outer);
      g.clip();
      g.lineWidth = Math.max(1, k * 0.002);
      const long = this.portrait ? outer[3] : outer[2];
      for (let i = 0; i < 90; i++) {
        const across = rnd() * (this.portrait ? outer[2] : outer[3]);
        g.strokeStyle = `rgba(${rnd() < 0.5 ? "30,14,6" : "120,70,40"},${0.15 + rnd() * 0.2})`;
        g.beginPath();
        const wobble = (rnd() - 0.5) * 6;
        if (this.portrait) {
          g.moveTo(outer[0] + across, outer[1]);
          g.bezierCurveTo(outer[0] + across + wobble, outer[1] + long / 3, outer[0] + across - wobble, outer[1] + (2 * long) / 3, outer[0] + across, outer[1] + long);
        } else {
          g.moveTo(outer[0], outer[1] + across);
          g.bezierCurveTo(outer[0] + long / 3, outer[1] + across + wobble, outer[0] + (2 * long) / 3, outer[1] + across - wobble, outer[0] + long, outer[1] + across);
        }
        g.stroke();
      }
      g.restore();
      // Mitred corners.
      const cloth = rect(0, 0, s.length, s.width);
      g.strokeStyle = COLOURS.railEdge;
      g.lineWidth = 1.5;
      for (const [ox, oy, ix, iy] of [
        [-RAIL_WIDTH, -RAIL_WIDTH, 0, 0],
        [s.length + RAIL_WIDTH, -RAIL_WIDTH, s.length, 0],
        [-RAIL_WIDTH, s.width + RAIL_WIDTH, 0, s.width],
        [s.length + RAIL_WIDTH, s.width + RAIL_WIDTH, s.length, s.width],
      ]) {
        const [ax, ay] = this.toScreen(ox, oy);
        const [bx, by] = this.toScreen(ix, iy);
        g.beginPath();
        g.moveTo(ax, ay);
        g.lineTo(bx, by);
        g.stroke();
      }
      // Cushions and cloth.
      const cush = rect(-CUSHION_WIDTH, -CUSHION_WIDTH, s.length + CUSHION_WIDTH, s.width + CUSHION_WIDTH);
      g.fillStyle = COLOURS.cushion;
      g.fillRect(...cush);
      const cx = cloth[0] + cloth[2] / 2;
      const cy = cloth[1] + cloth[3] / 2;
      const felt = g.createRadialGradient(cx, cy, 0, cx, cy, Math.hypot(cloth[2], cloth[3]) / 2);
      felt.addColorStop(0, "#2568b6");
      felt.addColorStop(1, COLOURS.cloth);
      g.fillStyle = felt;
      g.fillRect(...cloth);
      // A fine speckle, as the desktop's cloth texture.
      g.save();
      g.beginPath();
      g.rect(...cloth);
      g.clip();
      const dots = Math.min(6000, Math.round((cloth[2] * cloth[3]) / 60));
      for (let i = 0; i < dots; i++) {
        g.fillStyle = rnd() < 0.5 ? "rgba(10,40,90,0.18)" : "rgba(90,150,220,0.12)";
        g.fillRect(cloth[0] + rnd() * cloth[2], cloth[1] + rnd() * cloth[3], 1.5, 1.5);
      }
      g.restore();
      // The cushions' shadow on the cloth.
      const shade = Math.max(2, k * 0.006);
      g.fillStyle = COLOURS.clothEdge;
      g.fillRect(cloth[0], cloth[1], cloth[2], shade);
      g.fillRect(cloth[0], cloth[1] + cloth[3] - shade, cloth[2], shade);
      g.fillRect(cloth[0], cloth[1], shade, cloth[3]);
      g.fillRect(cloth[0] + cloth[2] - shade, cloth[1], shade, cloth[3]);
      // Diamonds, inlaid in the wood just outside each nose point.
      const out = CUSHION_WIDTH + (RAIL_WIDTH - CUSHION_WIDTH) / 2;
      const step = s.length / 8;
      const points = [];
      for (let i = 1; i < 8; i++) points.push([i * step, -out], [i * step, s.width + out]);
      for (let j = 1; j < 4; j++) points.push([-out, j * step], [s.length + out, j * step]);
      const d = Math.max(3, k * 0.011);
      for (const [x, y] of points) {
        const [sx, sy] = this.toScreen(x, y);
        for (const [size, colour] of [
          [d + 1.5, COLOURS.railEdge],
          [d, COLOURS.diamond],
        ]) {
          g.fillStyle = colour;
          g.beginPath();
          g.moveTo(sx - size, sy);
          g.lineTo(sx, sy + size);
          g.lineTo(sx + size, sy);
          g.lineTo(sx, sy - size);
          g.closePath();
          g.fill();
        }
      }
      // Spots.
      const off = (0.1825 * s.width) / 1.42;
      g.fillStyle = COLOURS.spot;
      for (const [x, y] of [
        [s.length / 4, s.width / 2],
        [s.length / 2, s.width / 2],
        [(3 * s.length) / 4, s.width / 2],
        [s.length / 4, s.width / 2 + off],
        [s.length / 4, s.width / 2 - off],
      ]) {
        const [sx, sy] = this.toScreen(x, y);
        g.beginPath();
        g.arc(sx, sy, Math.max(1.6, k * 0.004), 0, 2 * Math.PI);
        g.fill();
      }
      return c;
    }

    /** One frame: ``balls`` {name: [x, y, z]}, ``marked`` the shooter's ball, ``aim`` or null. */
    draw(balls, marked, aim) {
      this.fit();
      const g = this.ctx;
      g.drawImage(this.backdrop, 0, 0);
      if (aim) this.drawAim(balls, aim);
      const drawn = [];
      for (const name of BALL_ORDER) {
        const p = balls[name];
        if (!p) continue;
        drawn.push(this.drawBall(name, p));
        if (name === marked) this.drawMark(p);
      }
      if (aim) this.drawCue(balls, aim);
      this.drawnOnce = true;
      // Only a frame of balls alone can be moved on square by square (``drawMotion``).
      this.ballSquares = aim || (marked && balls[marked]) ? null : drawn;
      this.squaresKey = this.key;
    }

    /**
     * A frame of a rolling stroke: the backdrop is copied back over the squares the balls took
     * in the last frame, and the balls are drawn again, instead of the whole table. The browser
     * then paints and composites a few small squares sixty times a second rather than the full
     * canvas: on a phone that is the battery, on the test machine a third less of Chromium's
     * CPU per watched stroke (docs/benchmarks.md, round 11). A frame after anything else (an
     * aim, a marked ball, a new size) is drawn whole.
     */
    drawMotion(balls) {
      this.fit();
      const last = this.ballSquares;
      if (!last || this.squaresKey !== this.key) {
        this.draw(balls, null, null);
        return;
      }
      const g = this.ctx;
      for (const [x, y, w, h] of last) g.drawImage(this.backdrop, x, y, w, h, x, y, w, h);
      const drawn = [];
      for (const name of BALL_ORDER) {
        const p = balls[name];
        if (p) drawn.push(this.drawBall(name, p));
      }
      this.ballSquares = drawn;
    }

    /** One ball with its shadow and marks; returns the square of canvas pixels it covers. */
    drawBall(name, p) {
      const g = this.ctx;
      const r = this.spec.r * this.scale;
      const [sx, sy] = this.toScreen(p[0], p[1]);
      const lift = 1 + Math.min(0.4, (p[2] || 0) * 4);
      // Shadow, then the ball shaded by a light from the top left.
      g.fillStyle = "rgba(0,0,0,0.35)";
      g.beginPath();
      g.arc(sx + r * 0.25 * lift, sy + r * 0.3 * lift, r, 0, 2 * Math.PI);
      g.fill();
      const [hi, base, low] = BALLS[name];
      const grad = g.createRadialGradient(sx - r * 0.35, sy - r * 0.4, r * 0.1, sx, sy, r * lift);
      grad.addColorStop(0, hi);
      grad.addColorStop(0.45, base);
      grad.addColorStop(1, low);
      g.fillStyle = grad;
      g.beginPath();
      g.arc(sx, sy, r * lift, 0, 2 * Math.PI);
      g.fill();
      // The dotted ball's marks on the visible half, as the desktop client draws them.
      const q = p[3] || IDENTITY;
      const [ox, oy] = this.toScreen(0, 0);
      const [xx, xy] = this.toScreen(1, 0);
      const [yx, yy] = this.toScreen(0, 1);
      const k = this.scale;
      g.fillStyle = MARK_COLOURS[name];
      for (const mark of MARKS) {
        const v = qRotate(q, mark);
        if (v[2] <= 0.05) continue;
        const mx = sx + (((xx - ox) * v[0] + (yx - ox) * v[1]) / k) * r * lift;
        const my = sy + (((xy - oy) * v[0] + (yy - oy) * v[1]) / k) * r * lift;
        g.beginPath();
        g.ellipse(mx, my, r * 0.2 * lift, r * 0.2 * lift * (0.35 + 0.65 * v[2]), Math.atan2(my - sy, mx - sx), 0, 2 * Math.PI);
        g.fill();
      }
      // The shadow reaches 1.3 radii of the lifted ball from its centre; two pixels more for
      // the edges' anti-aliasing. Whole pixels, inside the canvas.
      const half = r * lift * 1.35 + 2;
      const x0 = Math.max(0, Math.floor(sx - half));
      const y0 = Math.max(0, Math.floor(sy - half));
      const x1 = Math.min(this.canvas.width, Math.ceil(sx + half));
      const y1 = Math.min(this.canvas.height, Math.ceil(sy + half));
      return [x0, y0, Math.max(0, x1 - x0), Math.max(0, y1 - y0)];
    }

    /** The dashed ring round the ball the shooter plays. */
    drawMark(p) {
      const g = this.ctx;
      const r = this.spec.r * this.scale;
      const [sx, sy] = this.toScreen(p[0], p[1]);
      g.strokeStyle = "rgba(255,255,255,0.9)";
      g.lineWidth = Math.max(1.5, r * 0.15);
      g.setLineDash([r * 0.5, r * 0.35]);
      g.beginPath();
      g.arc(sx, sy, r * 1.6, 0, 2 * Math.PI);
      g.stroke();
      g.setLineDash([]);
    }

    /** The aiming line to the first ball or cushion, the ghost ball and the object ball's path. */
    drawAim(balls, aim) {
      const c = balls[aim.ball];
      if (!c) return;
      const s = this.spec;
      const r = s.r;
      const a = (aim.direction * Math.PI) / 180;
      const dx = Math.cos(a);
      const dy = Math.sin(a);
      let best = Infinity;
      let hit = null;
      for (const name of BALL_ORDER) {
        const b = balls[name];
        if (!b || name === aim.ball) continue;
        const fx = c[0] - b[0];
        const fy = c[1] - b[1];
        const bq = fx * dx + fy * dy;
        const cq = fx * fx + fy * fy - 4 * r * r;
        const disc = bq * bq - cq;
        if (disc < 0) continue;
        const t = -bq - Math.sqrt(disc);
        if (t > 0 && t < best) {
          best = t;
          hit = b;
        }
      }
      for (const [v, lo, hi] of [
        [dx, c[0], s.length],
        [dy, c[1], s.width],
      ]) {
        if (v > 1e-9) best = Math.min(best, (hi - r - lo) / v);
        else if (v < -1e-9) best = Math.min(best, (r - lo) / v);
      }
      if (!Number.isFinite(best) || best < 0) return;
      const gx = c[0] + dx * best;
      const gy = c[1] + dy * best;
      const g = this.ctx;
      const [sx, sy] = this.toScreen(c[0], c[1]);
      const [ex, ey] = this.toScreen(gx, gy);
      g.strokeStyle = "rgba(255,255,255,0.85)";
      g.lineWidth = 1.5;
      g.setLineDash([6, 5]);
      g.beginPath();
      g.moveTo(sx, sy);
      g.lineTo(ex, ey);
      g.stroke();
      g.setLineDash([]);
      g.beginPath();
      g.arc(ex, ey, r * this.scale, 0, 2 * Math.PI);
      g.stroke();
      if (hit && Math.hypot(hit[0] - gx, hit[1] - gy) < 2 * r + 1e-6) {
        const ux = hit[0] - gx;
        const uy = hit[1] - gy;
        const n = Math.hypot(ux, uy) || 1;
        const [hx, hy] = this.toScreen(hit[0], hit[1]);
        const [tx, ty] = this.toScreen(hit[0] + (ux / n) * 0.3, hit[1] + (uy / n) * 0.3);
        g.strokeStyle = "rgba(236,228,205,0.8)";
        g.beginPath();
        g.moveTo(hx, hy);
        g.lineTo(tx, ty);
        g.stroke();
      }
    }

    drawCue(balls, aim) {
      const c = balls[aim.ball];
      if (!c) return;
      const g = this.ctx;
      const k = this.scale;
      const [sx, sy] = this.toScreen(c[0], c[1]);
      const ang = this.screenAngle(aim.direction);
      const back = this.spec.r * k * (1.4 + aim.speed * 0.5);
      const len = 1.4 * k;
      g.save();
      g.translate(sx, sy);
      g.rotate(ang + Math.PI);
      const grad = g.createLinearGradient(back, 0, back + len, 0);
      grad.addColorStop(0, "#e9dcb8");
      grad.addColorStop(0.55, "#d8c39a");
      grad.addColorStop(0.56, "#5a3018");
      grad.addColorStop(1, "#3a1c0c");
      g.fillStyle = grad;
      g.beginPath();
      g.moveTo(back, -0.006 * k);
      g.lineTo(back + len, -0.015 * k);
      g.lineTo(back + len, 0.015 * k);
      g.lineTo(back, 0.006 * k);
      g.closePath();
      g.fill();
      g.fillStyle = "#4a7bd0";
      g.fillRect(back - 0.004 * k, -0.006 * k, 0.004 * k, 0.012 * k);
      g.restore();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Page chrome

  function header(extra) {
    return el(
      "header",
      { class: "top" },
      el("a", { class: "brand", href: "/" }, "Carom"),
      el("span", { class: "spacer" }),
      extra || null,
    );
  }

  const banner = el("div", { class: "banner", role: "status", hidden: true });
  function showBanner(text, kind) {
    if (!text) {
      banner.hidden = true;
      return;
    }
    banner.hidden = false;
    banner.className = "banner " + (kind || "warn");
    setText(banner, text);
  }

  function downText(wasOpen, code, reason) {
    if (code === 1013) return "The game server is full right now. Trying again…";
    if (code === 1001) return "The game server is restarting. Reconnecting…";
    if (code === 1008 && reason) return `The game server closed the connection: ${reason}. Reconnecting…`;
    if (wasOpen) return "Connection lost. Reconnecting…";
    return "The game server cannot be reached or refused this page. Trying again…";
  }

  // ---------------------------------------------------------------------------------------------
  // The lobby: rooms (live), quick match, new table, account, leaderboard.

  function lobbyPage() {
    const account = el("div", { class: "account" });
    const roomsBody = el("tbody");
    const roomsNote = el("p", { class: "muted" }, "Loading the rooms…");
    const status = el("p", { class: "status", role: "status" });
    const select = (name) =>
      el(
        "select",
        { name, "aria-label": "Discipline" },
        DISCIPLINES.map((d) => el("option", { value: d }, discipline(d))),
      );
    const nameInput = el("input", { name: "player-name", maxlength: 32, value: myName(), autocomplete: "nickname" });
    const qmSelect = select("qm-discipline");
    const qmButton = el("button", { type: "button", class: "primary", id: "quick-match" }, "Quick match");
    const qmCancel = el("button", { type: "button", hidden: true }, "Stop looking");
    const newSelect = select("new-discipline");
    const newDistance = el("input", { name: "distance", type: "number", min: 1, max: 10000, placeholder: "default", inputmode: "numeric" });
    const newPrivate = el("input", { name: "private", type: "checkbox" });
    const newPractice = el("input", { name: "practice", type: "checkbox" });
    const newPassword = el("input", { name: "room-password", type: "password", maxlength: 64, placeholder: "password (private tables)" });
    const lbSelect = select("lb-discipline");
    const lbBody = el("tbody");

    const link = new Link({
      onOpen() {
        showBanner(null);
        refresh();
        showAccount();
      },
      onDown(wasOpen, code, reason) {
        showBanner(downText(wasOpen, code, reason), "error");
      },
      onRefused(text) {
        showBanner(text, "error");
      },
      onMessage(msg) {
        if (msg.t === "joined" && msg.seat_token) {
          store.set("seat." + msg.room_id, msg.seat_token);
          location.assign("/room/" + encodeURIComponent(msg.room_id));
        } else if (msg.t === "rooms") {
          showRooms(msg.rooms || []);
        }
      },
    });

    function showAccount() {
      account.replaceChildren();
      const w = link.welcome;
      if (!w) return;
      account.append(
        el("span", { class: "muted" }, "Playing as "),
        el("a", { href: "/player/" + encodeURIComponent(w.player_id), class: "me" }, myName()),
      );
    }

    function showRooms(rooms) {
      roomsBody.replaceChildren();
      setText(roomsNote, rooms.length ? "" : "No tables are open. Start one, or use quick match.");
      for (const r of rooms) {
        const players = (r.players || []).map((p) => (p === null ? "(free seat)" : p));
        // A team room lists four players, A1, B1, A2, B2: two sides of two partners.
        const sides = players.length === 4 ? [`${players[0]} & ${players[2]}`, `${players[1]} & ${players[3]}`] : players;
        const score = Array.isArray(r.score) ? r.score.join(" – ") : "";
        roomsBody.append(
          el(
            "tr",
            {},
            el("td", {}, discipline(r.discipline), r.practice ? " (practice)" : "", r.private ? " (private)" : ""),
            el("td", {}, String(r.distance)),
            el("td", { class: "names" }, sides.join(" vs ")),
            el("td", {}, score),
            el("td", {}, PHASES[r.phase] || String(r.phase)),
            el("td", {}, String(r.spectators)),
            el("td", {}, el("a", { href: "/room/" + encodeURIComponent(r.room_id), class: "button" }, r.phase === "waiting" && players.includes("(free seat)") ? "Open" : "Watch")),
          ),
        );
      }
    }

    function refresh() {
      if (!link.ready || document.hidden) return;
      link.send({ t: "list_rooms" });
    }
    setInterval(refresh, 2000);
    document.addEventListener("visibilitychange", refresh);

    nameInput.addEventListener("change", () => {
      const n = nameInput.value.trim();
      if (!n) return;
      store.set("name", n);
      link.restart();
    });

    qmButton.addEventListener("click", async () => {
      try {
        await link.ask({ t: "queue", discipline: qmSelect.value });
        setText(status, "Looking for an opponent…");
        qmButton.hidden = true;
        qmCancel.hidden = false;
      } catch (err) {
        setText(status, errorText(err));
      }
    });
    qmCancel.addEventListener("click", async () => {
      await link.request({ t: "unqueue" }).catch(() => {});
      setText(status, "");
      qmButton.hidden = false;
      qmCancel.hidden = true;
    });

    async function create(ev) {
      ev.preventDefault();
      const opts = { t: "create_room", discipline: newSelect.value };
      const dist = Number(newDistance.value);
      if (newDistance.value && Number.isInteger(dist)) opts.distance = dist;
      if (newPractice.checked) opts.practice = true;
      if (newPrivate.checked) {
        opts.private = true;
        if (newPassword.value) opts.password = newPassword.value;
      }
      try {
        const made = await link.ask(opts);
        once.put("sit." + made.room_id, "1");
        if (opts.password) once.put("password." + made.room_id, opts.password);
        location.assign("/room/" + encodeURIComponent(made.room_id));
      } catch (err) {
        setText(status, errorText(err));
      }
    }

    async function account_(kind, ev) {
      ev.preventDefault();
      const form = ev.target;
      const name = form.elements.namedItem("account-name").value.trim();
      const password = form.elements.namedItem("account-password").value;
      try {
        const w = await link.ask({ t: kind, name, password });
        link.adopt(w);
        store.set("name", name);
        nameInput.value = name;
        setText(status, kind === "login" ? `Welcome back, ${name}.` : `The name ${name} is yours now.`);
        showAccount();
      } catch (err) {
        setText(status, errorText(err));
      }
    }

    async function leaderboard() {
      try {
        const lb = await link.ask({ t: "leaderboard", discipline: lbSelect.value, limit: 20 });
        lbBody.replaceChildren();
        for (const row of lb.rows || []) {
          lbBody.append(
            el(
              "tr",
              {},
              el("td", {}, String(row.rank)),
              el("td", {}, el("a", { href: "/player/" + encodeURIComponent(row.player_id) }, row.name)),
              el("td", {}, row.rating.toFixed(0), row.provisional ? "?" : ""),
              el("td", {}, `${row.wins}–${row.draws}–${row.losses}`),
              el("td", {}, row.average.toFixed(3)),
            ),
          );
        }
        if (!(lb.rows || []).length) lbBody.append(el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No rated matches yet.")));
      } catch (err) {
        setText(status, errorText(err));
      }
    }
    lbSelect.addEventListener("change", leaderboard);

    const accountForm = el(
      "form",
      { class: "row", onsubmit: (ev) => account_(ev.submitter && ev.submitter.value === "register" ? "register" : "login", ev) },
      el("input", { name: "account-name", placeholder: "name", maxlength: 20, autocomplete: "username", required: true }),
      el("input", { name: "account-password", type: "password", placeholder: "password", maxlength: 64, autocomplete: "current-password", required: true }),
      el("button", { type: "submit", value: "login" }, "Log in"),
      el("button", { type: "submit", value: "register" }, "Register"),
    );

    APP.replaceChildren(
      header(account),
      banner,
      el(
        "main",
        { class: "lobby" },
        el(
          "section",
          { class: "card wide" },
          el("h2", {}, "Tables"),
          el(
            "table",
            { class: "rooms" },
            el("thead", {}, el("tr", {}, ["Game", "To", "Players", "Score", "Now", "Watching", ""].map((h) => el("th", {}, h)))),
            roomsBody,
          ),
          roomsNote,
        ),
        el(
          "section",
          { class: "card" },
          el("h2", {}, "Play"),
          el("label", { class: "row" }, "Your name ", nameInput),
          el("div", { class: "row" }, qmSelect, qmButton, qmCancel),
          el(
            "form",
            { class: "row", onsubmit: create, id: "new-table" },
            newSelect,
            el("label", {}, "to ", newDistance),
            el("label", {}, newPractice, " practice alone"),
            el("label", {}, newPrivate, " private"),
            newPassword,
            el("button", { type: "submit" }, "New table"),
          ),
          status,
        ),
        el(
          "section",
          { class: "card" },
          el("h2", {}, "Account"),
          el("p", { class: "muted" }, "Register to keep your name and your rating; log in on another device with it."),
          accountForm,
        ),
        el(
          "section",
          { class: "card" },
          el("h2", {}, "Leaderboard"),
          lbSelect,
          el("table", { class: "board" }, el("thead", {}, el("tr", {}, ["#", "Player", "Rating", "W–D–L", "Average"].map((h) => el("th", {}, h)))), lbBody),
        ),
      ),
    );
    const onFirstOpen = link.h.onOpen;
    link.h.onOpen = (w) => {
      onFirstOpen(w);
      leaderboard();
    };
    link.open();
  }

  // ---------------------------------------------------------------------------------------------
  // The room: watch live, or play the seat this browser holds.

  function roomPage() {
    const R = {
      room: null,
      match: null, // as shown (the score changes when the balls stop)
      seat: null,
      slot: null, // a team room: our place in the side's line-up
      seq: 0,
      turn: null,
      motion: null, // {paths, start_ms, rest_ms, fixed}
      held: [], // broadcasts that wait for the balls to stop
      gameOver: null,
      rated: null,
      sent: false,
      aim: { direction: 0, speed: 3.0, tip_x: 0, tip_y: 0, elevation: 0 },
      aimFor: null,
      orient: {}, // each ball's orientation, carried from stroke to stroke
      lastCall: "",
      entered: false,
      gone: false,
    };
    const stats = { frames: [], intervals: [], firstTableMs: null };
    window.caromStats = stats;

    // Elements ----------------------------------------------------------------------------------
    const panels = [0, 1].map((seat) => {
      const p = {
        box: el("div", { class: "player", "data-seat": seat }),
        dot: el("span", { class: "dot" }),
        name: el("span", { class: "name" }),
        you: el("span", { class: "you" }),
        score: el("span", { class: "score" }, "0"),
        line: el("div", { class: "line" }),
        away: el("div", { class: "away" }),
      };
      p.box.append(el("div", { class: "who" }, p.dot, p.name, p.you), p.score, p.line, p.away);
      return p;
    });
    const clock = el("div", { class: "clock" }, "");
    const game = el("div", { class: "game" }, "");
    const callStrip = el("div", { class: "call", role: "status", "aria-live": "polite" });
    const canvas = el("canvas", { class: "table", "aria-label": "The table" });
    const view = new TableView(canvas);
    const wrap = el("div", { class: "tablewrap" }, canvas);
    const turnLine = el("div", { class: "turn", role: "status" });
    const watching = el("span", { class: "watching" });
    const message = el("div", { class: "message", role: "alert" });

    const power = el("input", { type: "range", min: 0.3, max: 8, step: 0.05, value: R.aim.speed, "aria-label": "Power", id: "power" });
    const powerOut = el("output", { for: "power" });
    const elevation = el("input", { type: "range", min: 0, max: 60, step: 1, value: 0, "aria-label": "Elevation", id: "elevation" });
    const elevOut = el("output", {});
    const spin = el("canvas", { class: "spin", width: 120, height: 120, "aria-label": "Where the cue hits the ball", id: "spin" });
    const spinOut = el("output", {});
    const strike = el("button", { type: "button", class: "primary", id: "strike" }, "Strike");
    const aimOut = el("output", { class: "aimout" });
    const controls = el(
      "div",
      { class: "controls", hidden: true },
      el("div", { class: "ctl" }, el("label", { for: "power" }, "Power"), power, powerOut),
      el("div", { class: "ctl spinbox" }, spin, spinOut),
      el("div", { class: "ctl" }, el("label", { for: "elevation" }, "Elevation"), elevation, elevOut),
      el("div", { class: "ctl" }, aimOut, strike),
    );
    const breakBox = el(
      "div",
      { class: "choices", hidden: true },
      el("span", {}, "You won the lag. Who breaks?"),
      el("button", { type: "button", id: "break-me", onclick: () => act({ t: "choose_break", breaker: "me" }) }, "I break"),
      el("button", { type: "button", id: "break-opponent", onclick: () => act({ t: "choose_break", breaker: "opponent" }) }, "My opponent breaks"),
    );
    const respotBtn = el("button", { type: "button", hidden: true, onclick: () => act({ t: "respot" }) }, "Re-spot the balls");
    const sitBtn = el("button", { type: "button", class: "primary", hidden: true, id: "sit", onclick: sit }, "Take a seat");
    const concedeBtn = el("button", { type: "button", hidden: true, onclick: concede }, "Concede");
    const timeoutBtn = el("button", { type: "button", hidden: true, onclick: () => act({ t: "timeout" }) }, "Take a time-out");
    const resumeBtn = el("button", { type: "button", hidden: true, class: "primary", onclick: () => act({ t: "resume" }) }, "Resume play");
    const actions = el("div", { class: "choices" }, sitBtn, resumeBtn, respotBtn, timeoutBtn, concedeBtn);

    const chatList = el("ul", { class: "chatlines", "aria-live": "polite" });
    const chatInput = el("input", { name: "chat", maxlength: 200, placeholder: "Say something", autocomplete: "off", "aria-label": "Chat message" });
    const chatForm = el("form", { class: "chatform", onsubmit: sendChat }, chatInput, el("button", { type: "submit" }, "Send"));

    const pwInput = el("input", { type: "password", name: "password", maxlength: 64, "aria-label": "Password" });
    const pwForm = el(
      "form",
      { class: "card password", hidden: true, onsubmit: (ev) => { ev.preventDefault(); enter(pwInput.value); } },
      el("p", {}, "This table is private. Enter its password to watch or play."),
      pwInput,
      el("button", { type: "submit" }, "Enter"),
    );

    const sheet = el("div", { class: "sheet", hidden: true, role: "dialog", "aria-label": "Scoresheet" });

    APP.replaceChildren(
      header(watching),
      banner,
      el(
        "main",
        { class: "room" },
        el("div", { class: "hud" }, panels[0].box, el("div", { class: "centre" }, clock, game), panels[1].box),
        callStrip,
        pwForm,
        wrap,
        turnLine,
        message,
        breakBox,
        controls,
        actions,
        el("section", { class: "chat" }, chatList, chatForm),
        sheet,
      ),
    );

    // The connection ----------------------------------------------------------------------------
    const link = new Link({
      onOpen() {
        showBanner(null);
        enter();
      },
      onDown(wasOpen, code, reason) {
        R.entered = false;
        showBanner(downText(wasOpen, code, reason), "error");
        redraw();
      },
      onRefused(text) {
        showBanner(text, "error");
      },
      onMessage: handle,
    });

    async function enter(password) {
      if (!link.ready || R.gone) return;
      const held = store.get("seat." + PAGE_ID);
      if (held) {
        try {
          const j = await link.request({ t: "rejoin", room_id: PAGE_ID, seat_token: held });
          joined(j);
          return;
        } catch (err) {
          if (err.code === "closed") return;
          store.set("seat." + PAGE_ID, null);
          if (err.code === "no_such_room") return closed();
        }
      }
      const pw = password || once.take("password." + PAGE_ID) || undefined;
      if (once.take("sit." + PAGE_ID)) {
        try {
          const j = await link.request(withPw({ t: "join", room_id: PAGE_ID }, pw));
          joined(j);
          return;
        } catch (err) {
          if (err.code === "closed") return;
          say(errorText(err));
        }
      }
      try {
        const snap = await link.request(withPw({ t: "spectate", room_id: PAGE_ID }, pw));
        pwForm.hidden = true;
        R.entered = true;
        void snap;
      } catch (err) {
        if (err.code === "bad_password") {
          pwForm.hidden = false;
          wrap.hidden = true;
          if (password) say("That password is not right.");
          pwInput.focus();
        } else if (err.code === "no_such_room") closed();
        else if (err.code !== "closed") say(errorText(err));
      }
    }

    function withPw(msg, pw) {
      if (pw) msg.password = pw;
      return msg;
    }

    function joined(j) {
      store.set("seat." + j.room_id, j.seat_token);
      R.seat = j.seat;
      R.slot = j.slot === undefined ? null : j.slot; // a team room: our place in the side
      R.entered = true;
      pwForm.hidden = true;
      wrap.hidden = false;
    }

    function closed() {
      R.gone = true;
      setText(callStrip, "This table is closed.");
      say("This table is closed. Go back to the rooms to find another one.");
      redraw();
    }

    async function sit() {
      try {
        if (R.entered && R.seat === null) await link.request({ t: "leave" });
        const j = await link.request({ t: "join", room_id: PAGE_ID });
        joined(j);
      } catch (err) {
        say(errorText(err));
        link.request({ t: "spectate", room_id: PAGE_ID }).catch(() => {});
      }
    }

    async function act(msg) {
      try {
        await link.request(msg);
      } catch (err) {
        say(errorText(err));
      }
    }

    function concede() {
      if (window.confirm("Concede the match?")) act({ t: "concede" });
    }

    function sendChat(ev) {
      ev.preventDefault();
      const text = chatInput.value.trim();
      if (!text) return;
      link.request({ t: "chat", text }).then(
        () => {},
        (err) => say(errorText(err)),
      );
      chatInput.value = "";
    }

    function say(text) {
      setText(message, text || "");
    }

    // Messages ----------------------------------------------------------------------------------
    const WAIT_FOR_REST = new Set(["call", "turn", "game_over", "rated"]);

    function handle(msg) {
      if (typeof msg.seq === "number") {
        if (R.seq && msg.seq > R.seq + 1 && msg.t !== "snapshot") link.send({ t: "sync" });
        if (msg.t !== "snapshot") R.seq = Math.max(R.seq, msg.seq);
      }
      if (R.motion && WAIT_FOR_REST.has(msg.t)) {
        R.held.push(msg);
        return;
      }
      apply(msg);
    }

    function apply(msg) {
      switch (msg.t) {
        case "snapshot":
          R.seq = msg.seq;
          R.room = msg.room;
          R.seat = msg.seat === undefined ? R.seat : msg.seat;
          R.slot = msg.slot === undefined ? null : msg.slot;
          R.match = msg.match;
          R.entered = true;
          R.sent = false;
          R.gameOver = null;
          R.held = [];
          sheet.hidden = true;
          R.turn = { shooter: msg.match.shooter, deadline_ms: msg.match.deadline_ms, phase: msg.match.phase };
          view.setTable((msg.room.options && msg.room.options.table) || "match");
          if (msg.in_motion && msg.in_motion.rest_ms > link.serverNow()) startMotion(msg.in_motion, msg.match);
          else R.motion = null;
          if (msg.match.phase === "over" && msg.match.result) showCall("The match is over.");
          break;
        case "stroke_played":
        case "lag_result":
          startMotion(msg, msg.match);
          R.sent = false;
          break;
        case "call":
          showCall(plain(msg.text, nameOf));
          break;
        case "turn":
          R.turn = msg;
          if (R.match) {
            R.match = Object.assign({}, R.match, { shooter: msg.shooter, deadline_ms: msg.deadline_ms, phase: msg.phase, shooter_slot: msg.shooter_slot === undefined ? null : msg.shooter_slot });
          }
          R.sent = false;
          break;
        case "player_status":
          // A team room's side stays connected while a partner is (the next snapshot says);
          // a partner's own status changes no side here.
          if (R.match && (msg.slot === undefined || msg.slot === null)) {
            const connected = R.match.connected.slice();
            const grace = R.match.grace_until_ms.slice();
            connected[msg.seat] = msg.status === "connected";
            grace[msg.seat] = msg.status === "connected" ? null : msg.grace_until_ms || null;
            R.match = Object.assign({}, R.match, { connected, grace_until_ms: grace });
          }
          break;
        case "game_over":
          R.gameOver = msg;
          showSheet();
          break;
        case "rated":
          R.rated = msg;
          if (R.gameOver) showSheet();
          break;
        case "chat":
          addChat(msg.from, msg.text, msg.seat);
          break;
        case "audience":
          // The room's spectator count, sent at most once a second while it changes.
          if (R.room && msg.room_id === R.room.room_id) {
            R.room = Object.assign({}, R.room, { spectators: msg.spectators });
          }
          break;
        case "joined":
          joined(msg);
          break;
        case "left":
          break;
        case "error":
          if (msg.code === "bad_token") {
            store.set("seat." + PAGE_ID, null);
            R.seat = null;
            say("Your seat is now played from another window or device.");
          } else say(errorText(msg));
          break;
        case "closing":
          showBanner("The game server is restarting. Reconnecting…", "warn");
          break;
        default:
          break;
      }
      redraw();
    }

    function nameOf(seat) {
      // A team room's side is its two partners (seats are listed A1, B1, A2, B2).
      const names = sideNames(seat);
      return names.length ? names.join(" & ") : `Player ${seat + 1}`;
    }

    function nameOf2(seat, slot) {
      // One partner of a team room's side (seats A1, B1, A2, B2).
      const i = seat + 2 * (slot || 0);
      const s = R.room && R.room.seats ? R.room.seats[i] : null;
      return (s && s.name) || (R.room && R.room.players && R.room.players[i]) || "your partner";
    }

    function sideNames(seat) {
      const room = R.room;
      if (!room || !room.players) return [];
      const out = [];
      for (let i = seat; i < room.players.length; i += 2) {
        const s = room.seats ? room.seats[i] : null;
        const name = s ? s.name : room.players[i];
        if (name) out.push(name);
      }
      return out;
    }

    function showCall(text) {
      R.lastCall = text;
      setText(callStrip, text);
    }

    function startMotion(msg, after) {
      const paths = {};
      for (const [ball, flat] of Object.entries(msg.trajectory || {})) {
        if (flat.length >= 16) paths[ball] = new BallPath(flat, R.orient[ball]);
      }
      R.motion = { paths, start_ms: msg.start_ms, rest_ms: msg.rest_ms, after };
      showCall(""); // the referee speaks when the balls stop
      if (!looping) {
        looping = true;
        requestAnimationFrame(frame);
      }
    }

    function restNow() {
      const m = R.motion;
      R.motion = null;
      if (m) {
        const t = (m.rest_ms - m.start_ms) / 1000;
        for (const [b, path] of Object.entries(m.paths)) {
          const p = path.pose(t);
          if (p) R.orient[b] = p[3];
        }
      }
      if (m && m.after) R.match = m.after;
      const held = R.held;
      R.held = [];
      for (const msg of held) apply(msg);
      redraw();
    }

    function addChat(from, text, seat) {
      const line = el("li", { class: seat === null || seat === undefined ? "spectator" : "seat" + seat }, el("b", {}, from), ": ", text);
      chatList.append(line);
      while (chatList.childElementCount > 100) chatList.firstElementChild.remove();
      chatList.scrollTop = chatList.scrollHeight;
    }

    // Drawing -----------------------------------------------------------------------------------
    function ballsNow() {
      const balls = {};
      const m = R.match;
      if (m && m.balls) {
        for (const [b, p] of Object.entries(m.balls)) if (p) balls[b] = [p[0], p[1], 0, R.orient[b]];
      }
      if (R.motion) {
        const t = (link.serverNow() - R.motion.start_ms) / 1000;
        for (const [b, path] of Object.entries(R.motion.paths)) {
          const p = path.pose(t);
          if (p) balls[b] = p;
        }
      }
      return balls;
    }

    function myBall() {
      const m = R.match;
      if (!m || R.seat === null) return null;
      if (m.phase === "lag" && m.lag) return m.lag.balls[String(R.seat)] || null;
      return m.cue_ball;
    }

    function canShoot() {
      const m = R.match;
      if (!m || R.seat === null || R.motion || R.sent || !link.welcome || R.gameOver) return false;
      // A team room: the lag is the first players', a stroke the partner's whose turn it is.
      const mine = R.slot === null || R.slot === undefined ? 0 : R.slot;
      if (m.phase === "lag") return !!(m.lag && !m.lag.played[R.seat]) && mine === 0;
      const due = m.shooter_slot === null || m.shooter_slot === undefined ? 0 : m.shooter_slot;
      return m.phase === "play" && m.shooter === R.seat && due === mine;
    }

    function markedBall() {
      const m = R.match;
      if (!m || R.motion) return null;
      if (m.phase === "lag") return myBall();
      if (m.phase === "play" || m.phase === "timeout") return m.cue_ball;
      return null;
    }

    let lastFrame = null;
    let looping = false;
    function frame(now) {
      if (!R.motion || link.serverNow() >= R.motion.rest_ms) {
        looping = false;
        lastFrame = null;
        if (R.motion) restNow();
        return;
      }
      const t0 = performance.now();
      view.drawMotion(ballsNow());
      // For `python -m bench web`: the time each frame takes to draw, and between frames.
      stats.frames.push(performance.now() - t0);
      if (lastFrame !== null) stats.intervals.push(now - lastFrame);
      lastFrame = now;
      if (stats.frames.length > 2000) stats.frames.splice(0, 1000);
      if (stats.intervals.length > 2000) stats.intervals.splice(0, 1000);
      requestAnimationFrame(frame);
    }

    let pending = false;
    function redraw() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        render();
      });
    }

    function render() {
      const m = R.match;
      const shooting = canShoot();
      if (shooting && R.aimFor !== aimKey()) {
        R.aimFor = aimKey();
        if (m.phase === "lag") R.aim.direction = 0;
      }
      if (!R.motion && m) {
        view.draw(ballsNow(), markedBall(), shooting ? Object.assign({ ball: myBall() }, R.aim) : null);
        if (stats.firstTableMs === null) {
          stats.firstTableMs = performance.now();
          performance.mark("carom-first-table");
        }
      } else if (!m) {
        view.draw({}, null, null);
      }
      B.dataset.ready = m ? "1" : "";
      hud();
    }

    function aimKey() {
      const m = R.match;
      return `${m.phase}:${m.shooter}:${m.innings && m.innings.join(",")}:${m.lag ? m.lag.repeats : ""}`;
    }

    function hud() {
      const m = R.match;
      const room = R.room;
      if (!m || !room) {
        setText(turnLine, R.gone ? "" : link.ready ? "Joining the table…" : "");
        controls.hidden = true;
        return;
      }
      const atRest = !R.motion;
      const seats = room.players.length;
      panels[1].box.classList.toggle("unused", seats < 2); // a practice table has one seat
      for (const seat of [0, 1].slice(0, seats)) {
        const p = panels[seat];
        const seatView = room.seats ? room.seats[seat] : null;
        if (room.players.length === 4) {
          // A team room: both partners, the one to strike marked (R-TEAM-2, R-TEAM-3).
          const names = [seat, seat + 2].map((i, slot) => {
            const sv = room.seats ? room.seats[i] : null;
            const n = (sv ? sv.name : room.players[i]) || "Free seat";
            const striking = m.shooter === seat && m.shooter_slot === slot && (m.phase === "play" || m.phase === "timeout");
            const you = R.seat === seat && R.slot === slot ? " (you)" : "";
            return (striking ? "▸ " : "") + n + you;
          });
          setText(p.name, names.join(" · "));
          setText(p.you, "");
        } else {
          setText(p.name, seatView ? seatView.name : room.players[seat] || "Free seat");
          setText(p.you, R.seat === seat ? " (you)" : "");
        }
        setText(p.score, String(m.score[seat]));
        const atTable = m.shooter === seat && (m.phase === "play" || m.phase === "timeout");
        const run = atTable ? ` · Run ${m.current_run}` : "";
        setText(p.line, `Innings ${m.innings[seat]} · Average ${Number(m.average[seat]).toFixed(3)} · High run ${m.high_run[seat]}${run}`);
        const ball = ballOf(seat);
        p.dot.className = "dot " + (ball || "none");
        p.box.classList.toggle("shooting", atTable);
        // The stroke still rolling may be the one that ended the match (its result waits for
        // the balls to stop); players who leave then have not lost their connection mid-match.
        const ending = R.motion && R.motion.after && R.motion.after.phase === "over";
        const away = seatView && !m.connected[seat] && m.phase !== "over" && m.phase !== "waiting" && !ending;
        let awayText = "";
        if (away) {
          const until = m.grace_until_ms[seat];
          const secs = until ? Math.max(0, Math.ceil((until - link.serverNow()) / 1000)) : null;
          awayText = R.seat === seat ? "Reconnecting…" : `Lost the connection: reconnecting${secs !== null ? ` (${secs} s before a forfeit)` : ""}.`;
        }
        setText(p.away, awayText);
      }
      setText(game, `${discipline(room.discipline)} · to ${room.distance}${m.sets > 1 ? ` · game ${m.set} of ${m.sets}` : ""}`);
      const n = room.spectators || 0;
      setText(watching, n === 1 ? "1 watching" : `${n} watching`);
      // The shot clock, while the shooter thinks.
      if (atRest && m.deadline_ms && (m.phase === "play" || m.phase === "timeout" || m.phase === "lag")) {
        const left = Math.max(0, Math.ceil((m.deadline_ms - link.serverNow()) / 1000));
        setText(clock, String(left));
        clock.classList.toggle("low", left <= 10);
        ensureTicking();
      } else setText(clock, "");
      // What happens now, in a sentence.
      let line = "";
      if (R.gameOver || m.phase === "over") line = "The match is over.";
      else if (R.motion) line = "The balls are rolling.";
      else if (m.phase === "waiting") line = R.seat !== null ? "Waiting for an opponent to sit down." : "Waiting for players.";
      else if (m.phase === "lag") line = canShoot() ? "The lag: play your ball to the far short cushion and back." : R.seat !== null ? "Waiting for the other lag stroke." : "The players are lagging for the break.";
      else if (m.phase === "break_choice") line = m.lag && m.lag.winner === R.seat ? "You won the lag." : `${nameOf(m.lag ? m.lag.winner : 0)} won the lag and chooses who breaks.`;
      else if (m.phase === "timeout") line = `${nameOf(m.shooter)} took a time-out.`;
      else if (m.shooter === R.seat && R.slot !== null && R.slot !== undefined && m.shooter_slot !== R.slot) line = `Your partner ${nameOf2(R.seat, m.shooter_slot)} is at the table.`;
      else if (m.shooter === R.seat) line = R.sent ? "Stroke sent." : "Your shot.";
      else if (m.shooter !== null) line = `${R.room && R.room.players.length === 4 ? nameOf2(m.shooter, m.shooter_slot) : nameOf(m.shooter)} to play.`;
      setText(turnLine, line);
      const seated = R.seat !== null;
      controls.hidden = !(seated && (m.phase === "lag" || m.phase === "play")) || !!R.gameOver;
      strike.disabled = !canShoot();
      breakBox.hidden = !(seated && m.phase === "break_choice" && m.lag && m.lag.winner === R.seat && atRest);
      respotBtn.hidden = !(canShoot() && m.frozen && m.frozen.balls && m.frozen.balls.length);
      concedeBtn.hidden = !(seated && !["waiting", "over"].includes(m.phase) && !R.gameOver);
      const startOfInning = m.current_run === 0 && !m.break_shot;
      timeoutBtn.hidden = !(canShoot() && m.phase === "play" && !room.practice && startOfInning && m.timeouts_left && m.timeouts_left[R.seat] > 0);
      resumeBtn.hidden = !(seated && m.phase === "timeout" && m.shooter === R.seat && atRest);
      const free = room.players.some((p) => p === null);
      sitBtn.hidden = !(R.seat === null && m.phase === "waiting" && free && !R.gone);
      setText(powerOut, `${R.aim.speed.toFixed(2)} m/s`);
      setText(elevOut, `${R.aim.elevation}°`);
      setText(aimOut, `Aim ${R.aim.direction.toFixed(1)}°`);
      setText(spinOut, spinWords());
      drawSpin();
    }

    function ballOf(seat) {
      const m = R.match;
      if (!m) return null;
      if (m.phase === "lag" && m.lag) return m.lag.balls[String(seat)] || null;
      if (m.white_seat === null || m.white_seat === undefined) return null;
      return m.white_seat === seat ? "white" : "yellow";
    }

    function spinWords() {
      const { tip_x: x, tip_y: y } = R.aim;
      if (Math.hypot(x, y) < 0.05) return "Centre ball";
      const parts = [];
      if (y > 0.05) parts.push("follow");
      if (y < -0.05) parts.push("draw");
      if (x > 0.05) parts.push("right side");
      if (x < -0.05) parts.push("left side");
      return parts.join(", ").replace(/^./, (c) => c.toUpperCase());
    }

    let ticking = null;
    function ensureTicking() {
      if (ticking !== null) return;
      ticking = setInterval(() => {
        const m = R.match;
        if (!m || !m.deadline_ms || R.motion) {
          clearInterval(ticking);
          ticking = null;
        }
        hud();
      }, 250);
    }

    // Aiming: drag on the table, the power and elevation sliders, the spin ball, the keys.
    function aimAt(ev) {
      const ball = myBall();
      const balls = ballsNow();
      if (!ball || !balls[ball]) return;
      const box = canvas.getBoundingClientRect();
      const [x, y] = view.toTable(ev.clientX - box.left, ev.clientY - box.top);
      const c = balls[ball];
      if (Math.hypot(x - c[0], y - c[1]) < 1e-3) return;
      let deg = (Math.atan2(y - c[1], x - c[0]) * 180) / Math.PI;
      if (deg < 0) deg += 360;
      R.aim.direction = Math.round(deg * 100) / 100 % 360;
      redraw();
    }
    let dragging = false;
    canvas.addEventListener("pointerdown", (ev) => {
      if (!canShoot()) return;
      dragging = true;
      canvas.setPointerCapture(ev.pointerId);
      aimAt(ev);
    });
    canvas.addEventListener("pointermove", (ev) => {
      if (dragging) aimAt(ev);
    });
    const stop = () => {
      dragging = false;
    };
    canvas.addEventListener("pointerup", stop);
    canvas.addEventListener("pointercancel", stop);

    power.addEventListener("input", () => {
      R.aim.speed = Number(power.value);
      redraw();
    });
    elevation.addEventListener("input", () => {
      R.aim.elevation = Number(elevation.value);
      redraw();
    });
    let spinning = false;
    function spinAt(ev) {
      const box = spin.getBoundingClientRect();
      const x = ((ev.clientX - box.left) / box.width) * 2 - 1;
      const y = -(((ev.clientY - box.top) / box.height) * 2 - 1);
      let tx = x / 0.85;
      let ty = y / 0.85;
      const n = Math.hypot(tx, ty);
      if (n > 0.6) {
        tx = (tx / n) * 0.6;
        ty = (ty / n) * 0.6;
      }
      R.aim.tip_x = Math.round(tx * 100) / 100;
      R.aim.tip_y = Math.round(ty * 100) / 100;
      redraw();
    }
    spin.addEventListener("pointerdown", (ev) => {
      spinning = true;
      spin.setPointerCapture(ev.pointerId);
      spinAt(ev);
    });
    spin.addEventListener("pointermove", (ev) => {
      if (spinning) spinAt(ev);
    });
    spin.addEventListener("pointerup", () => {
      spinning = false;
    });

    function drawSpin() {
      const g = spin.getContext("2d");
      const w = spin.width;
      const c = w / 2;
      const r = w * 0.425;
      g.clearRect(0, 0, w, w);
      const grad = g.createRadialGradient(c - r * 0.3, c - r * 0.3, r * 0.1, c, c, r);
      grad.addColorStop(0, "#ffffff");
      grad.addColorStop(1, "#d9d6ca");
      g.fillStyle = grad;
      g.beginPath();
      g.arc(c, c, r, 0, 2 * Math.PI);
      g.fill();
      g.strokeStyle = "#b0302f";
      g.lineWidth = 1.5;
      g.beginPath();
      g.arc(c, c, r * 0.6, 0, 2 * Math.PI);
      g.stroke();
      g.strokeStyle = "rgba(0,0,0,0.25)";
      g.beginPath();
      g.moveTo(c - r, c);
      g.lineTo(c + r, c);
      g.moveTo(c, c - r);
      g.lineTo(c, c + r);
      g.stroke();
      g.fillStyle = "#2f6fd0";
      g.beginPath();
      g.arc(c + R.aim.tip_x * r, c - R.aim.tip_y * r, w * 0.06, 0, 2 * Math.PI);
      g.fill();
    }

    function strikeNow() {
      if (!canShoot()) return;
      const a = R.aim;
      const msg = {
        t: "stroke",
        direction: Number(a.direction.toFixed(3)) % 360,
        speed: a.speed,
        tip_x: a.tip_x,
        tip_y: a.tip_y,
        elevation: a.elevation,
      };
      R.sent = true;
      say("");
      link.request(msg).then(
        () => {},
        (err) => {
          R.sent = false;
          say(errorText(err));
          redraw();
        },
      );
      redraw();
    }
    strike.addEventListener("click", strikeNow);

    document.addEventListener("keydown", (ev) => {
      const tag = (ev.target && ev.target.tagName) || "";
      if (tag === "INPUT" && ev.target.type !== "range") return;
      if (tag === "TEXTAREA" || tag === "SELECT") return;
      if (!canShoot()) return;
      const fine = ev.shiftKey ? 1 : 0.1;
      let used = true;
      if (ev.key === "ArrowLeft") R.aim.direction = (R.aim.direction + fine + 360) % 360;
      else if (ev.key === "ArrowRight") R.aim.direction = (R.aim.direction - fine + 360) % 360;
      else if (ev.key === "ArrowUp") R.aim.speed = Math.min(8, R.aim.speed + 0.1);
      else if (ev.key === "ArrowDown") R.aim.speed = Math.max(0.3, R.aim.speed - 0.1);
      else if (ev.key === " " || ev.key === "Enter") {
        if (tag === "BUTTON") return;
        strikeNow();
      } else used = false;
      if (used) {
        ev.preventDefault();
        R.aim.direction = Math.round(R.aim.direction * 100) / 100;
        R.aim.speed = Math.round(R.aim.speed * 100) / 100;
        power.value = String(R.aim.speed);
        redraw();
      }
    });

    window.addEventListener("resize", redraw);

    // The scoresheet ----------------------------------------------------------------------------
    function showSheet() {
      const over = R.gameOver;
      if (!over) return;
      const sh = over.scoresheet;
      const who = over.winner === null || over.winner === undefined ? null : nameOf(over.winner);
      const title = who ? `${who} wins: ${reasonText(over.reason)}.` : `A draw: ${reasonText(over.reason)}.`;
      const head = el("tr", {}, ["", "Points", "Innings", "Average", "High run"].map((h) => el("th", {}, h)));
      const rows = [0, 1].map((seat) => {
        const line = sh.match[seat];
        return el("tr", { "data-seat": seat }, el("th", {}, nameOf(seat)), el("td", {}, String(line.points)), el("td", {}, String(line.innings)), el("td", {}, Number(line.average).toFixed(3)), el("td", {}, String(line.high_run)));
      });
      const sets = (sh.sets || []).length > 1
        ? el("p", { class: "muted" }, "Games: " + sh.sets.map((s) => `${s.lines[0].points}–${s.lines[1].points}`).join(", "))
        : null;
      let rating = null;
      if (R.rated) {
        const d = R.rated.after - R.rated.before;
        rating = el("p", { class: "rating" }, `Your rating: ${R.rated.before.toFixed(1)} → ${R.rated.after.toFixed(1)} (${d >= 0 ? "+" : ""}${d.toFixed(1)})`);
      } else if (R.seat !== null) {
        rating = el("p", { class: "muted" }, "This match is not rated.");
      }
      const buttons = el(
        "div",
        { class: "choices" },
        R.seat !== null ? el("button", { type: "button", onclick: () => act({ t: "rematch" }) }, "Rematch") : null,
        el("a", { href: "/replay/" + encodeURIComponent(String(over.match_id)), class: "button" }, "Watch the replay"),
        el("a", { href: "/", class: "button" }, "Back to the rooms"),
        el("button", { type: "button", onclick: () => { sheet.hidden = true; } }, "Close"),
      );
      sheet.replaceChildren(
        el("div", { class: "card" }, el("h2", {}, "Scoresheet"), el("p", { class: "result" }, title), el("table", { class: "scoresheet" }, el("thead", {}, head), el("tbody", {}, rows)), sets, rating, buttons),
      );
      sheet.hidden = false;
    }

    redraw();
    link.open();
  }

  // ---------------------------------------------------------------------------------------------
  // A replay: the strokes of a finished match, animated one after the other.

  function replayPage() {
    const canvas = el("canvas", { class: "table", "aria-label": "The table" });
    const view = new TableView(canvas);
    const title = el("h2", {}, "Replay");
    const line = el("div", { class: "turn", role: "status" });
    const call = el("div", { class: "call" });
    const playBtn = el("button", { type: "button", class: "primary" }, "Pause");
    const nextBtn = el("button", { type: "button" }, "Next stroke");
    const S = { strokes: [], i: 0, t0: 0, playing: true, balls: {}, names: ["", ""], done: false, room: null, orient: {} };
    APP.replaceChildren(
      header(null),
      banner,
      el("main", { class: "room" }, title, call, el("div", { class: "tablewrap" }, canvas), line, el("div", { class: "choices" }, playBtn, nextBtn)),
    );
    const link = new Link({
      async onOpen() {
        showBanner(null);
        if (S.strokes.length) return;
        let after;
        try {
          for (;;) {
            const msg = { t: "get_replay", match_id: Number(PAGE_ID) };
            if (after !== undefined) msg.after = after;
            const rep = await link.request(msg);
            S.room = rep.room;
            S.strokes.push(...rep.strokes);
            if (rep.next_after === undefined || rep.next_after === null) break;
            after = rep.next_after;
          }
        } catch (err) {
          setText(line, errorText(err));
          playBtn.hidden = nextBtn.hidden = true; // nothing to play: no controls for it
          return;
        }
        S.names = S.room.players.map((p) => p.name);
        setText(title, `${discipline(S.room.discipline)}: ${S.names.join(" vs ")}`);
        view.setTable((S.room.options && S.room.options.table) || "match");
        begin(0);
        requestAnimationFrame(tick);
      },
      onDown(wasOpen, code, reason) {
        showBanner(downText(wasOpen, code, reason), "error");
      },
      onRefused(text) {
        showBanner(text, "error");
      },
      onMessage() {},
    });

    function begin(i) {
      const old = S.strokes[S.i];
      if (old && old.paths && i !== S.i) {
        const t = (old.rest_ms - old.start_ms) / 1000;
        for (const [b, path] of Object.entries(old.paths)) {
          const p = path.pose(t);
          if (p) S.orient[b] = p[3];
        }
      }
      S.i = i;
      S.t0 = performance.now();
      const s = S.strokes[i];
      if (!s) {
        S.done = true;
        setText(line, "The end of the match.");
        return;
      }
      setText(line, `Stroke ${i + 1} of ${S.strokes.length}`);
      const calls = (s.result && s.result.calls) || [];
      setText(call, calls.map((c) => plain(c.text, (n) => S.names[n] || `Player ${n + 1}`)).join(" "));
    }

    function tick() {
      const s = S.strokes[S.i];
      if (!s) return;
      let t = (performance.now() - S.t0) / 1000;
      if (!S.playing) t = 0;
      const balls = {};
      const before = S.i > 0 ? S.strokes[S.i - 1].match : null;
      if (before && before.balls) {
        for (const [b, p] of Object.entries(before.balls)) if (p) balls[b] = [p[0], p[1], 0, S.orient[b]];
      }
      const dur = s.trajectory ? (s.rest_ms - s.start_ms) / 1000 : 0;
      if (!s.paths) {
        s.paths = {};
        for (const [b, flat] of Object.entries(s.trajectory || {})) {
          if (flat.length >= 16) s.paths[b] = new BallPath(flat, S.orient[b]);
        }
      }
      for (const [b, path] of Object.entries(s.paths)) {
        const p = path.pose(Math.min(t, dur));
        if (p) balls[b] = p;
      }
      view.drawMotion(balls);
      if (S.playing && t > dur + 1.2) begin(S.i + 1);
      if (!S.done) requestAnimationFrame(tick);
    }

    playBtn.addEventListener("click", () => {
      S.playing = !S.playing;
      S.t0 = performance.now();
      setText(playBtn, S.playing ? "Pause" : "Play");
    });
    nextBtn.addEventListener("click", () => begin(Math.min(S.i + 1, S.strokes.length)));
    link.open();
  }

  // ---------------------------------------------------------------------------------------------
  // A player's profile.

  function playerPage() {
    const title = el("h2", {}, "Player");
    const standings = el("tbody");
    const matches = el("tbody");
    const note = el("p", { class: "muted" });
    APP.replaceChildren(
      header(null),
      banner,
      el(
        "main",
        { class: "lobby" },
        el("section", { class: "card wide" }, title, note, el("h3", {}, "Ratings"), el("table", { class: "board" }, el("thead", {}, el("tr", {}, ["Game", "Rating", "W–D–L", "Average", "High run"].map((h) => el("th", {}, h)))), standings)),
        el("section", { class: "card wide" }, el("h3", {}, "Last matches"), el("table", { class: "board" }, el("thead", {}, el("tr", {}, ["Game", "Against", "Result", "Score", "Average", ""].map((h) => el("th", {}, h)))), matches)),
      ),
    );
    const link = new Link({
      async onOpen() {
        showBanner(null);
        try {
          const p = await link.request({ t: "profile", player_id: PAGE_ID });
          setText(title, p.name);
          setText(note, p.bot ? "A bot." : p.registered ? "A registered player." : "A guest.");
          standings.replaceChildren(...p.standings.map((s) => el("tr", {}, el("td", {}, discipline(s.discipline)), el("td", {}, s.rating.toFixed(0), s.provisional ? "?" : ""), el("td", {}, `${s.wins}–${s.draws}–${s.losses}`), el("td", {}, s.average.toFixed(3)), el("td", {}, String(s.high_run)))));
          matches.replaceChildren(
            ...p.matches.map((m) =>
              el(
                "tr",
                {},
                el("td", {}, discipline(m.discipline)),
                el("td", {}, m.opponent ? el("a", { href: "/player/" + encodeURIComponent(m.opponent.player_id) }, m.opponent.name) : ""),
                el("td", {}, { win: "Won", loss: "Lost", draw: "Draw" }[m.result] || m.result),
                el("td", {}, `${m.score[0]}–${m.score[1]}`),
                el("td", {}, Number(m.average).toFixed(3)),
                el("td", {}, el("a", { href: "/replay/" + encodeURIComponent(String(m.match_id)) }, "Replay")),
              ),
            ),
          );
        } catch (err) {
          setText(title, errorText(err));
        }
      },
      onDown(wasOpen, code, reason) {
        showBanner(downText(wasOpen, code, reason), "error");
      },
      onRefused(text) {
        showBanner(text, "error");
      },
      onMessage() {},
    });
    link.open();
  }

  const pages = { lobby: lobbyPage, room: roomPage, replay: replayPage, player: playerPage };
  (pages[PAGE] || lobbyPage)();
})();
