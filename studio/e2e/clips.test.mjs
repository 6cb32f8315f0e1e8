// End-to-end, the clips view (issue 28): the real `sinew studio` binary on a copy of the demo
// project, driven in Chromium (software WebGL: SwiftShader). Adds a notify by double-click,
// drags it, edits a field, saves — the file changes only there — and checks the palette, the
// preview's WebGL canvas and the playhead. Screenshots go to target/studio-e2e/clips-*.png.
//
//   cargo build && (cd studio && SINEW_BIN=../target/debug/sinew npm run e2e)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSession } from './harness.mjs';

// The demo project's assets folder of this run's copy (set by `before`, used by the helpers
// that add files to it and by the tests).
let A;

// A 64-bone skeleton (a chain of four limbs of 16) and a 10 s clip on it, for the preview's
// frame rate; and a clip with 10,000 notifies, for the clustered timeline.
function bigRig() {
  const bones = [];
  const tracks = [];
  for (let i = 0; i < 64; i++) {
    const limb = Math.floor(i / 16);
    const parent = i % 16 === 0 ? (i === 0 ? 'None' : 'Some("b0")') : `Some("b${i - 1}")`;
    const off = i === 0 ? '(0.0, 1.0, 0.0)' : i % 16 === 0 ? `(${limb * 0.2 - 0.3}, 0.0, 0.0)` : '(0.0, 0.06, 0.0)';
    bones.push(`        (name: "b${i}", parent: ${parent}, translation: ${off}, rotation: (0.0, 0.0, 0.0, 1.0), scale: (1.0, 1.0, 1.0)),`);
    const keys = [];
    for (let k = 0; k <= 20; k++) {
      const a = Math.sin(k / 3 + i) * 0.1;
      keys.push(`(${(k * 0.5).toFixed(1)}, (${a.toFixed(4)}, 0.0, 0.0, ${Math.sqrt(1 - a * a).toFixed(6)}))`);
    }
    tracks.push(`        (bone: "b${i}", translation: [], rotation: [${keys.join(', ')}], scale: []),`);
  }
  writeFileSync(join(A, 'rig64.skel'), `Skeleton(\n    bones: [\n${bones.join('\n')}\n    ],\n)\n`);
  writeFileSync(
    join(A, 'rig64.animseq'),
    `AnimSeq(\n    format: 2,\n    id: "rig64",\n    name: "Rig 64",\n    duration: 10.0,\n    skeleton: Some("rig64.skel"),\n    tracks: [\n${tracks.join('\n')}\n    ],\n)\n`,
  );
  const notes = [];
  for (let i = 0; i < 10000; i++) notes.push(`        (id: "n${i}", name: "N${i}", time: ${(i * 0.001).toFixed(3)}),`);
  writeFileSync(
    join(A, 'many.animseq'),
    `AnimSeq(\n    format: 2,\n    id: "many",\n    name: "Many",\n    duration: 10.0,\n    tracks: [],\n    notifies: [\n${notes.join('\n')}\n    ],\n)\n`,
  );
}

// A model three.js cannot load: an imported clip whose manifest names a `.glb` of garbage.
function brokenModel() {
  const from = join(A, 'animations', 'generated', 'ded83416-ab6f-474b-9676-de99af79d229');
  const to = join(A, 'animations', 'broken');
  cpSync(from, to, { recursive: true });
  const m = join(to, 'manifest.ron');
  writeFileSync(m, readFileSync(m, 'utf8').replace('source: "models/fox_footsteps.glb"', 'source: "models/broken.glb"'));
  writeFileSync(join(A, 'models', 'broken.glb'), 'glTF this is not a model');
  // Its own sequence IDs, so the catalog quarantines nothing (a copy would claim the fox's).
  for (const f of ['Run.animseq', 'Survey.animseq']) rmSync(join(to, f));
  const w = join(to, 'Walk.animseq');
  writeFileSync(w, readFileSync(w, 'utf8').replace(/^    id: "[^"]+",/m, '    id: "0b0b0b0b-0000-4000-8000-00000000b0b0",'));
}

let session;
let url;
let page;
const metrics = {};

before(async () => {
  session = await startSession({
    prefix: 'sinew-clips-e2e-',
    prepare: (project) => {
      A = project.A;
      bigRig();
      brokenModel();
    },
    webgl: true,
    timeout: 20000,
  });
  ({ url, page } = session);
});

const shot = (name) => session.shot(`clips-${name}`);

after(async () => {
  await session?.close({ metrics, file: 'clips-metrics.json' });
});

// The CPU time (ms) every Chromium process this test started has used so far: frames cost CPU
// whatever the machine's load, so CPU per frame compares builds where frame rates cannot.
function chromiumCpuMs() {
  const procs = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), { comm, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone meanwhile
    }
  }
  let ticks = 0;
  for (const p of procs.values()) {
    if (!/chrom/i.test(p.comm)) continue;
    let q = p;
    for (let k = 0; k < 64 && q; k++) {
      if (q.ppid === process.pid) {
        ticks += p.ticks;
        break;
      }
      q = procs.get(q.ppid);
    }
  }
  return ticks * 10; // USER_HZ = 100
}

async function openClip(path) {
  await page.goto(`${url}&clip=${encodeURIComponent(path)}`);
  await page.waitForSelector(`.clips-app[data-ready="true"][data-open-path="${path}"]`);
}

test('add a notify by double-click, drag it, edit a field, save: the file changes only there', async () => {
  const file = join(A, 'walk.animseq');
  const before = readFileSync(file, 'utf8');
  await openClip('walk.animseq');
  await page.waitForSelector('[data-notify-id="footstep_l"]');
  await shot('01-opened');
  // Double-click the owner lane at about 0.6 s.
  const lane = await page.locator('.tl-lane[data-lane="owner"]').boundingBox();
  const m0 = await page.locator('[data-notify-id="footstep_l"]').boundingBox();
  const m1 = await page.locator('[data-notify-id="footstep_r"]').boundingBox();
  const pps = (m1.x - m0.x) / 0.6;
  const x06 = m0.x + m0.width / 2 + 0.3 * pps;
  await page.mouse.dblclick(x06, lane.y + lane.height / 2);
  await page.waitForSelector('[data-notify-id="notify_1"]');
  // Drag it by about 0.1 s: it snaps to a frame of 30 fps.
  const n = await page.locator('[data-notify-id="notify_1"]').boundingBox();
  await page.mouse.move(n.x + n.width / 2, n.y + n.height / 2);
  await page.mouse.down();
  await page.mouse.move(n.x + n.width / 2 + 0.05 * pps, n.y + n.height / 2, { steps: 4 });
  await page.mouse.move(n.x + n.width / 2 + 0.1 * pps, n.y + n.height / 2, { steps: 4 });
  await page.mouse.up();
  const t = Number(await page.locator('[data-notify-id="notify_1"]').getAttribute('data-time'));
  assert.ok(Math.abs(t - 0.7) < 0.05, `dragged to ${t}`);
  assert.equal(Math.round(t * 30 * 1e6) / 1e6, Math.round(t * 30), `snapped to a frame: ${t}`);
  // Edit its name in the side panel.
  await page.fill('[data-testid="field-name"]', 'Scuff');
  await page.press('[data-testid="field-name"]', 'Enter');
  await page.waitForSelector('[data-notify-id="notify_1"][title^="Scuff"]');
  await shot('02-edited');
  // Undo and redo: one step per action.
  await page.keyboard.press('Control+z');
  await page.waitForSelector('[data-notify-id="notify_1"][title^="notify_1"]');
  await page.keyboard.press('Control+Shift+z');
  await page.waitForSelector('[data-notify-id="notify_1"][title^="Scuff"]');
  await page.keyboard.press('Control+s');
  await page.waitForSelector('[data-testid="clip-message"]:has-text("saved")');
  const after = readFileSync(file, 'utf8');
  const line = `        (id: "notify_1", name: "Scuff", time: ${t}),\n`;
  assert.equal(after, before.replace('Float(0.6))]),\n    ],', `Float(0.6))]),\n${line}    ],`));
  await shot('03-saved');
});

test('the palette lists the new event', async () => {
  const r = await page.evaluate(async () => (await fetch('/api/palette')).text());
  assert.ok(r.includes('6f445aa3-c53f-4364-8e31-6cfd2d513bbd.notify_1'), 'palette has the new notify');
});

test('the preview canvas renders and the playhead moves', async () => {
  await openClip('hero_walk.animseq');
  await page.waitForSelector('canvas[data-engine="three"][data-rendered="true"]');
  // The joints are drawn in #ffd166: count such pixels in what WebGL rendered.
  const lit = await page.evaluate(() => {
    const c = document.querySelector('canvas[data-engine="three"]');
    const gl = c.getContext('webgl2') || c.getContext('webgl');
    const px = new Uint8Array(4 * c.width * c.height);
    gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let bright = 0;
    for (let i = 0; i < px.length; i += 4) if (px[i] > 200 && px[i + 1] > 150 && px[i + 2] < 140) bright++;
    return { bright, w: c.width, h: c.height };
  });
  assert.ok(lit.w > 100 && lit.h > 100, JSON.stringify(lit));
  assert.ok(lit.bright > 0, `the skeleton is drawn: ${JSON.stringify(lit)}`);
  const p0 = Number(await page.locator('[data-playhead]').getAttribute('data-playhead'));
  await page.click('[data-testid="play"]');
  await page.waitForFunction((p) => Number(document.querySelector('[data-playhead]').getAttribute('data-playhead')) > p + 0.2, p0);
  await shot('04-playing');
  await page.click('[data-testid="play"]');
  // Scrubbing is a seek: the playhead follows, nothing flashes. A marker playback crossed may
  // still flash (250 ms) after the pause: wait for that to end, then watch every marker from
  // before the seek until it is drawn, so a flash the seek started is seen however short.
  await page.waitForFunction(() => document.querySelectorAll('[data-flash="true"]').length === 0);
  await page.evaluate(() => {
    window.__flashed = 0;
    const lit = (n) => n.nodeType === 1 && (n.matches('[data-flash="true"]') || n.querySelector('[data-flash="true"]'));
    window.__flashWatch = new MutationObserver((ms) => {
      for (const m of ms) {
        if (m.type === 'attributes' && lit(m.target)) window.__flashed++;
        for (const n of m.addedNodes || []) if (lit(n)) window.__flashed++;
      }
    });
    window.__flashWatch.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-flash'] });
  });
  await page.locator('[data-testid="scrub"]').fill('0.3');
  await page.waitForFunction(() => Number(document.querySelector('[data-playhead]').getAttribute('data-playhead')) === 0.3);
  // The seek is drawn: two animation frames have run since (a condition, not a pause).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const flashed = await page.evaluate(() => { window.__flashWatch.disconnect(); return window.__flashed; });
  assert.equal(flashed, 0, 'the seek flashed a marker');
  assert.equal(await page.locator('[data-flash="true"]').count(), 0);
});

test('a clip imported from a model plays on its skinned mesh', async () => {
  const fox = 'animations/generated/ded83416-ab6f-474b-9676-de99af79d229/Walk.animseq';
  await openClip(fox);
  await page.waitForSelector('canvas[data-engine="three"][data-mesh="true"]');
  const note = await page.locator('[data-testid="preview-note"]').textContent();
  assert.match(note, /Skinned mesh of models\/fox_footsteps\.glb/);
  await page.locator('[data-testid="scrub"]').fill('0.35');
  // The seek is drawn: two animation frames have run since (a condition, not a pause).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await shot('08-fox-mesh');
});

test('a model three.js cannot load leaves the bones alone, with a note', async () => {
  await openClip('animations/broken/Walk.animseq');
  await page.waitForSelector('canvas[data-engine="three"][data-rendered="true"]');
  await page.waitForFunction(() => /cannot be loaded by three\.js/.test(document.querySelector('[data-testid="preview-note"]').textContent));
  assert.equal(await page.locator('canvas[data-mesh="true"]').count(), 0);
  await shot('09-broken-model');
});

test('a state machine is drawn, and a run marks the current state per entity', async () => {
  await page.goto(`${url}&clip=hero.animsm`);
  await page.waitForSelector('.clips-app[data-open-path="hero.animsm"] [data-testid="machine"] svg [data-state="idle"]');
  await page.selectOption('[data-testid="machine-scene"]', 'demo.scene.ron');
  await page.click('[data-testid="machine-run"]');
  await page.waitForSelector('[data-entity="hero"][data-entity-state="move"]');
  await page.waitForSelector('[data-testid="machine"] [data-state="move"][data-current="true"]');
  assert.equal(await page.locator('[data-testid="machine"] [data-transition="idle -> move"][data-current="true"]').count() > 0, true);
  await shot('05-machine');
});

test('10,000 notifies are clustered and the timeline stays responsive', async () => {
  const t0 = Date.now();
  await openClip('many.animseq');
  await page.waitForSelector('.tl-cluster');
  const open = Date.now() - t0;
  const clusters = await page.locator('.tl-cluster').count();
  assert.ok(clusters > 0 && clusters < 2000, `clusters: ${clusters}`);
  const z0 = Date.now();
  await page.click('[data-testid="zoom-in"]');
  await page.waitForFunction(() => true);
  const zoom = Date.now() - z0;
  metrics.many_notifies = { open_ms: open, clusters, zoom_ms: zoom };
  assert.ok(zoom < 2000, `zoom took ${zoom} ms`);
  await shot('06-many');
});

test('the preview frame rate with 64 bones is measured (>= 30 fps asserted with SINEW_PERF=1)', async () => {
  await openClip('rig64.animseq');
  await page.waitForSelector('canvas[data-engine="three"][data-rendered="true"]');
  await page.click('[data-testid="play"]');
  await page.waitForFunction(() => Number(document.querySelector('canvas[data-engine="three"]').getAttribute('data-fps')) > 0, null, { timeout: 10000 });
  // Two more measurement windows: wait until the preview has published its figures twice more.
  // `data-draw-ms` is published every 10 drawn frames: count those over at least 30 frames, with
  // the CPU time Chromium spent meanwhile.
  await page.evaluate(() => {
    const c = document.querySelector('canvas[data-engine="three"]');
    window.__fpsUpdates = 0;
    window.__tens = 0;
    new MutationObserver((list) => {
      window.__fpsUpdates += list.length;
      window.__tens += list.filter((m) => m.attributeName === 'data-draw-ms').length;
    }).observe(c, { attributes: true, attributeFilter: ['data-fps', 'data-draw-ms'] });
  });
  const cpu0 = chromiumCpuMs();
  const wall0 = Date.now();
  await page.waitForFunction(() => window.__fpsUpdates >= 2 && window.__tens >= 3, null, { timeout: 30000 });
  const tens = await page.evaluate(() => window.__tens);
  const cpuPerFrame = (chromiumCpuMs() - cpu0) / (tens * 10);
  const wallPerFrame = (Date.now() - wall0) / (tens * 10);
  const canvas = page.locator('canvas[data-engine="three"]');
  const fps = Number(await canvas.getAttribute('data-fps'));
  const drawMs = Number(await canvas.getAttribute('data-draw-ms'));
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  metrics.preview_64_bones = { fps, draw_ms: drawMs, chromium_cpu_ms_per_frame: Number(cpuPerFrame.toFixed(1)), load_average: Number(load) };
  console.log(`preview: Chromium used ${cpuPerFrame.toFixed(1)} ms of CPU per frame (${wallPerFrame.toFixed(1)} ms of wall time)`);
  await shot('07-rig64');
  await page.click('[data-testid="play"]');
  console.log(`preview: ${fps} fps with 64 bones (${drawMs} ms per frame drawn; load average ${load})`);
  assert.ok(fps > 0 && drawMs > 0);
  // The frame rate depends on the machine (software WebGL shares the CPU): asserted where the
  // measurement is taken for docs/benchmarks.md (SINEW_PERF=1), reported everywhere.
  if (process.env.SINEW_PERF === '1') assert.ok(fps >= 30, `${fps} fps`);
});
