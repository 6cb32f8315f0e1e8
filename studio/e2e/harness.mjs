// The shared set-up of the studio's end-to-end suites: a copy of the demo project in a temporary
// folder, the real `sinew studio` on it (port 0), Debian's Chromium through playwright-core,
// screenshots under target/studio-e2e/, and conditions waited for with deadlines.
//
//   const s = await startSession({ prefix: 'sinew-studio-e2e-', prepare: (p) => …, clipboard: true });
//   … s.page, s.url, s.project.G …
//   await s.close({ metrics, file: 'metrics.json' });
//
// SINEW_BIN overrides the binary (default ../target/release/sinew); CHROMIUM the browser
// (default /usr/bin/chromium). SINEW_STUDIO_DIST (a fresh `npm run build` output) is passed to
// the server as it is, so the page under test can be the working copy's.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
export const bin = process.env.SINEW_BIN ?? join(repo, 'target', 'release', 'sinew');
export const shots = join(repo, 'target', 'studio-e2e');
mkdirSync(shots, { recursive: true });

/** Chromium's flags for every suite; `webgl` adds ANGLE on SwiftShader (software WebGL). */
export function chromiumArgs({ webgl = false } = {}) {
  const gpu = webgl ? ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] : ['--disable-gpu'];
  return ['--headless', '--no-sandbox', ...gpu, '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
}

/** A copy of the demo project (`assets/`, `graphs/demo/`, `scenes/`) in a fresh temporary folder. */
export function makeProject(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const project = { dir, A: join(dir, 'assets'), G: join(dir, 'graphs'), S: join(dir, 'scenes') };
  cpSync(join(repo, 'assets'), project.A, { recursive: true });
  cpSync(join(repo, 'graphs', 'demo'), join(project.G, 'demo'), { recursive: true });
  cpSync(join(repo, 'scenes'), project.S, { recursive: true });
  return project;
}

/** Starts `sinew studio` on the project; resolves with its address (token included). */
export function startStudio(project, { timeoutMs = 20000 } = {}) {
  const server = spawn(bin, ['studio', '--port', '0', '--assets', project.A, '--graphs', project.G, '--scenes', project.S], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = new Promise((ok, fail) => {
    let buf = '';
    const timer = setTimeout(() => fail(new Error('studio did not print its address')), timeoutMs);
    server.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/^studio: (\S+)/m);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    server.on('exit', (c) => {
      clearTimeout(timer);
      fail(new Error(`studio exited with ${c}`));
    });
  });
  return { server, url };
}

/**
 * The whole set-up: project (then `prepare(project)` to add files), server, browser, one page.
 * `clipboard: true` grants the page the clipboard; `webgl: true` gives it software WebGL.
 */
export async function startSession({ prefix, prepare, clipboard = false, webgl = false, timeout = 15000, viewport = { width: 1500, height: 900 } }) {
  const project = makeProject(prefix);
  if (prepare) prepare(project);
  const { server, url: pending } = startStudio(project);
  const url = await pending;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: chromiumArgs({ webgl }) });
  const context = await browser.newContext({ viewport });
  if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  page.on('pageerror', (e) => console.error('page error:', e));
  return {
    project,
    server,
    url,
    browser,
    context,
    page,
    /** A screenshot of the page as target/studio-e2e/NAME.png. */
    shot: (name) => page.screenshot({ path: join(shots, `${name}.png`) }),
    /** Stops browser and server, writes `metrics` to target/studio-e2e/FILE, removes the project. */
    async close({ metrics, file } = {}) {
      await browser.close().catch(() => {});
      server.kill('SIGINT');
      if (metrics && file) writeFileSync(join(shots, file), JSON.stringify(metrics, null, 2) + '\n');
      rmSync(project.dir, { recursive: true, force: true });
    },
  };
}

/** The centre of the first element `sel` matches, in screen coordinates. */
export async function center(page, sel) {
  const b = await page.locator(sel).first().boundingBox();
  assert.ok(b, `no box for ${sel}`);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** Waits until `cond()` is truthy, polling every `everyMs`, failing after `ms`. */
export async function waitUntil(ms, cond, what = 'condition', everyMs = 25) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A graph of `n` `int.add` nodes in chains of 40 on a grid (the performance graph), with
 * `boxes` comment boxes and `reroutes` reroute nodes (each spliced into a chain's wire).
 */
export function bigGraph(n, { name = 'big', vars = false, boxes = 0, reroutes = 0 } = {}) {
  const lines = [`graph ${name}`, ''];
  if (vars) lines.push('var total: int = 0', '');
  for (let i = 0; i < boxes; i++) {
    const col = i % 10;
    const row = Math.floor(i / 10);
    lines.push(`box "Group ${i}" at (${col * 1040 - 20}, ${row * 600 - 40}) size (1020, 560)`);
  }
  if (boxes) lines.push('');
  for (let i = 0; i < n; i++) lines.push(`node n${i} = int.add { b = ${i} } at (${(i % 40) * 260}, ${Math.floor(i / 40) * 120})`);
  // Reroutes sit on the wire into every k-th node of a chain (never a chain's first node).
  const spliced = new Set();
  const wired = [];
  for (let i = 1; i < n; i++) if (i % 40 !== 0) wired.push(i);
  const step = reroutes ? Math.max(1, Math.floor(wired.length / reroutes)) : 0;
  for (let k = 0; k < reroutes && k * step < wired.length; k++) {
    const i = wired[k * step];
    spliced.add(i);
    lines.push(`node r${i} = reroute at (${(i % 40) * 260 - 40}, ${Math.floor(i / 40) * 120 + 70})`);
  }
  lines.push('');
  for (const i of wired) {
    if (spliced.has(i)) lines.push(`n${i - 1}.out -> r${i}.in`, `r${i}.out -> n${i}.a`);
    else lines.push(`n${i - 1}.out -> n${i}.a`);
  }
  return lines.join('\n') + '\n';
}

/** The machine's load, recorded beside every measurement. */
export function machine() {
  return { load_average: Number(loadavg()[0].toFixed(1)), cores: cpus().length };
}

/** Every `.react-flow__node` is shown (React Flow hides a node until it has measured it). */
export async function waitAllShown(page, timeout = 5000) {
  await page
    .waitForFunction(() => [...document.querySelectorAll('.react-flow__node')].every((n) => getComputedStyle(n).visibility !== 'hidden'), undefined, { timeout })
    .catch(async () => {
      const hidden = await page.evaluate(() =>
        [...document.querySelectorAll('.react-flow__node')].filter((n) => getComputedStyle(n).visibility === 'hidden').map((n) => n.getAttribute('data-id')),
      );
      assert.fail(`nodes still hidden ${timeout / 1000} s after the step: ${hidden.join(', ')}`);
    });
}

/**
 * The page's own work during `action` (Chrome DevTools protocol `Performance.getMetrics`):
 * script, layout and style recalculation, and all of the renderer main thread's tasks, in ms —
 * what the page did, apart from how long a loaded machine took to let it do it.
 */
export async function pageWork(page, action) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  const read = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const a = await read();
  const result = await action();
  const b = await read();
  await cdp.send('Performance.disable');
  await cdp.detach();
  const d = (k) => Math.round((b[k] - a[k]) * 1000);
  return { result, work: { script_ms: d('ScriptDuration'), layout_ms: d('LayoutDuration'), style_ms: d('RecalcStyleDuration'), tasks_ms: d('TaskDuration'), layouts: b.LayoutCount - a.LayoutCount } };
}

/**
 * Pans the canvas with the middle button around an ellipse (90 moves, 16 ms apart) and gives
 * the frame rate from `requestAnimationFrame` timestamps, with the page's own work meanwhile.
 */
export async function measurePan(page) {
  const pane = await page.locator('.react-flow__pane').boundingBox();
  await page.evaluate(() => {
    performance.clearMarks();
    performance.clearMeasures();
    performance.mark('pan-start');
    window.__frames = [];
    window.__stop = false;
    const tick = (t) => {
      window.__frames.push(t);
      if (window.__frames.length < 100000 && !window.__stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const x0 = pane.x + pane.width / 2;
  const y0 = pane.y + pane.height / 2;
  await page.mouse.move(x0, y0);
  const { result, work } = await pageWork(page, async () => {
    // Left-drag on empty canvas box-selects; the middle (or right) button pans.
    await page.mouse.down({ button: 'middle' });
    for (let i = 1; i <= 90; i++) {
      const a = (i / 90) * Math.PI * 2;
      await page.mouse.move(x0 + Math.sin(a) * 300, y0 + (1 - Math.cos(a)) * 120);
      // Paced by the page: each move waits for the frame that draws it (no fixed pause).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    }
    await page.mouse.up({ button: 'middle' });
    return page.evaluate(() => {
      window.__stop = true;
      performance.mark('pan-end');
      const m = performance.measure('pan', 'pan-start', 'pan-end');
      const start = performance.getEntriesByName('pan-start')[0].startTime;
      return { frames: window.__frames.filter((t) => t >= start), measured: m.duration };
    });
  });
  const { frames, measured } = result;
  assert.ok(frames.length > 10, `frames: ${frames.length}`);
  const span = (frames[frames.length - 1] - frames[0]) / 1000;
  const fps = (frames.length - 1) / span;
  const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const p95 = gaps[Math.floor(gaps.length * 0.95)];
  assert.ok(fps > 0 && Number.isFinite(fps), `panning drew no frames (${fps})`);
  return { fps: Number(fps.toFixed(1)), p95_frame_ms: Number(p95.toFixed(1)), seconds: Number(span.toFixed(2)), measured_ms: Math.round(measured), ...work, ...machine() };
}
