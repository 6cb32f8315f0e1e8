// End-to-end: the real `sinew studio` binary on a copy of the demo project, driven in Debian's
// Chromium through playwright-core. Each step writes a screenshot to target/studio-e2e/.
//
//   cargo build --release && (cd studio && npm ci && npm run e2e)
//
// SINEW_BIN overrides the binary (default ../target/release/sinew); CHROMIUM the browser
// (default /usr/bin/chromium). With STUDIO_DOC_SHOTS=1 the screenshots docs/studio.md shows are
// copied to docs/studio/ after the run (commit them when the page changed).
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const bin = process.env.SINEW_BIN ?? join(repo, 'target', 'release', 'sinew');
const shots = join(repo, 'target', 'studio-e2e');
mkdirSync(shots, { recursive: true });

const project = mkdtempSync(join(tmpdir(), 'sinew-studio-e2e-'));
const A = join(project, 'assets');
const G = join(project, 'graphs');
const S = join(project, 'scenes');
cpSync(join(repo, 'assets'), A, { recursive: true });
cpSync(join(repo, 'graphs', 'demo'), join(G, 'demo'), { recursive: true });
cpSync(join(repo, 'scenes'), S, { recursive: true });

// A 1,000-node graph for the panning measurement: chains of int.add on a grid.
function bigGraph(n) {
  const lines = ['graph big', '', 'var total: int = 0', ''];
  for (let i = 0; i < n; i++) {
    lines.push(`node n${i} = int.add { b = ${i} } at (${(i % 40) * 260}, ${Math.floor(i / 40) * 120})`);
  }
  lines.push('');
  for (let i = 1; i < n; i++) if (i % 40 !== 0) lines.push(`n${i - 1}.out -> n${i}.a`);
  return lines.join('\n') + '\n';
}
mkdirSync(join(G, 'perf'), { recursive: true });
writeFileSync(join(G, 'perf', 'big.bpg'), bigGraph(1000));

let server;
let url;
let browser;
let page;
const metrics = {};

function sinew(...args) {
  return spawnSync(bin, args, { encoding: 'utf8' });
}

async function shot(name) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

async function center(sel) {
  const b = await page.locator(sel).first().boundingBox();
  assert.ok(b, `no box for ${sel}`);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

async function dragPin(fromSel, toSel) {
  const a = await center(fromSel);
  const b = await center(toSel);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 6 });
  await page.mouse.move(b.x, b.y, { steps: 6 });
  await page.mouse.up();
}

async function openGraph(path) {
  await page.goto(`${url}&graph=${encodeURIComponent(path)}`);
  await page.waitForSelector('.app[data-ready="true"]');
  await page.waitForSelector('[data-node-id]');
}

before(async () => {
  server = spawn(bin, ['studio', '--port', '0', '--assets', A, '--graphs', G, '--scenes', S], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  url = await new Promise((ok, fail) => {
    let buf = '';
    server.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/^studio: (\S+)/m);
      if (m) ok(m[1]);
    });
    server.on('exit', (c) => fail(new Error(`studio exited with ${c}`)));
    setTimeout(() => fail(new Error('studio did not print its address')), 20000);
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
  page.setDefaultTimeout(15000);
  page.on('pageerror', (e) => console.error('page error:', e));
});

after(async () => {
  await browser?.close();
  server?.kill('SIGINT');
  writeFileSync(join(shots, 'metrics.json'), JSON.stringify(metrics, null, 2) + '\n');
  if (process.env.STUDIO_DOC_SHOTS === '1') {
    const docs = {
      '01-loaded': 'loaded',
      '04-refused': 'refused-link',
      '06-conflict': 'conflict',
      '07-debugger': 'debugger',
      '08-live-rename': 'live-rename',
      '09-big-graph': 'big-graph',
    };
    for (const [from, to] of Object.entries(docs)) {
      copyFileSync(join(shots, `${from}.png`), join(repo, 'docs', 'studio', `${to}.png`));
    }
  }
  rmSync(project, { recursive: true, force: true });
});

// After every step, every node on the canvas is shown. React Flow hides a node until it has
// measured it; a node that stays hidden (a lost measurement) is a bug of the page, whichever
// node a step waits for.
afterEach(async () => {
  if (!page) return;
  await page
    .waitForFunction(
      () => [...document.querySelectorAll('.react-flow__node')].every((n) => getComputedStyle(n).visibility !== 'hidden'),
      undefined,
      { timeout: 5000 },
    )
    .catch(async () => {
      const hidden = await page.evaluate(() =>
        [...document.querySelectorAll('.react-flow__node')].filter((n) => getComputedStyle(n).visibility === 'hidden').map((n) => n.getAttribute('data-id')),
      );
      assert.fail(`nodes still hidden 5 s after the step: ${hidden.join(', ')}`);
    });
});

test('loads a graph and shows every node', async () => {
  await openGraph('demo/hero.bpg');
  const text = readFileSync(join(G, 'demo', 'hero.bpg'), 'utf8');
  const ids = [...text.matchAll(/^node (\w+)/gm)].map((m) => m[1]);
  assert.equal(ids.length, 17);
  for (const id of ids) assert.equal(await page.locator(`[data-node-id="${id}"]`).count(), 1, id);
  assert.equal(await page.locator('[data-link]').count(), 17);
  assert.ok(await page.locator('[data-pin="count.value"]').count());
  await shot('01-loaded');
  // export picture: the SVG of `sinew graph --svg`
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-svg"]')]);
  assert.equal(download.suggestedFilename(), 'hero.svg');
  const svg = readFileSync(await download.path(), 'utf8');
  assert.match(svg, /data-node-id="count"/);
});

test('adds nodes from the palette (drag, and double-click search)', async () => {
  await page.fill('[data-testid="palette-search"]', 'add int');
  const entry = page.locator('[data-palette-kind="int.add"]').first();
  await entry.waitFor();
  await entry.dragTo(page.locator('.react-flow__pane'), { targetPosition: { x: 300, y: 120 } });
  await page.waitForSelector('[data-node-id="add"]');
  // double-click search at the cursor
  const pane = await page.locator('.react-flow__pane').boundingBox();
  await page.mouse.dblclick(pane.x + 420, pane.y + pane.height - 120);
  await page.waitForSelector('[data-testid="quick-add"] input');
  await page.keyboard.type('debug log');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node-id="log"]');
  await page.fill('[data-testid="palette-search"]', '');
  await shot('02-added');
});

test('connects two pins', async () => {
  await dragPin('[data-pin="get.value"]', '[data-pin="add.a"]');
  await page.waitForSelector('[data-link="get.value -> add.a"]');
  await shot('03-connected');
});

test('a refused link shows its reason at once', async () => {
  await dragPin('[data-pin="hi.then"]', '[data-pin="add.b"]');
  const refused = page.locator('[data-testid="link-refused"]');
  await refused.waitFor();
  assert.match(await refused.innerText(), /cannot link exec pin `hi\.then` to data pin `add\.b`/);
  assert.equal(await page.locator('[data-link="hi.then -> add.b"]').count(), 0);
  await shot('04-refused');
});

test('edits a literal, undoes and redoes it', async () => {
  await page.locator('[data-node-id="add"]').click();
  await page.click('[data-tab="node"]');
  const b = page.locator('[data-testid="inspector"] input[data-field="b"]');
  await b.fill('5');
  await b.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-node-id="add"]')?.textContent?.includes('5'));
  await page.locator('.react-flow__pane').click({ position: { x: 30, y: 30 } });
  await page.keyboard.press('Control+z');
  await page.waitForFunction(() => !document.querySelector('[data-node-id="add"]')?.textContent?.includes('5'));
  await page.keyboard.press('Control+Shift+z');
  await page.waitForFunction(() => document.querySelector('[data-node-id="add"]')?.textContent?.includes('5'));
});

test('saves: the file is canonical and compiles', async () => {
  await page.keyboard.press('Control+s');
  await page.waitForSelector('.toast.ok');
  await page.waitForFunction(() => !document.querySelector('.app')?.hasAttribute('data-dirty'));
  const file = join(G, 'demo', 'hero.bpg');
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^get\.value -> add\.a$/m);
  assert.match(text, /^node add = int\.add \{ b = 5 \} at \(-?\d+, -?\d+\)$/m);
  assert.match(text, /^\/\/ The hero counts its own footsteps/m, 'comments survive');
  const fmt = sinew('fmt', '--check', file);
  assert.equal(fmt.status, 0, fmt.stdout + fmt.stderr);
  const check = sinew('check', file, '--assets', A, '--format', 'json');
  assert.equal(check.status, 0, check.stdout + check.stderr);
  await shot('05-saved');
});

test('a save over a file changed on disk is refused and keeps both sides', async () => {
  const file = join(G, 'demo', 'hero.bpg');
  // move a node in the page (unsaved), then change the file behind its back
  const box = await page.locator('[data-node-id="log"] .sn-header').boundingBox();
  await page.mouse.move(box.x + 30, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + 90, box.y + 50, { steps: 5 });
  await page.mouse.up();
  await page.waitForSelector('.app[data-dirty="true"]');
  const theirs = readFileSync(file, 'utf8').replace('"hero ready"', '"hero ready!"');
  writeFileSync(file, theirs);
  await page.keyboard.press('Control+s');
  await page.waitForSelector('[data-testid="conflict"]');
  assert.equal(readFileSync(file, 'utf8'), theirs, 'nothing written over their change');
  assert.equal(await page.locator('[data-node-id="log"]').count(), 1, 'the page keeps its edits');
  await shot('06-conflict');
  // keep mine: overwrite with the page's version (the hero graph goes back to "hero ready")
  await page.click('[data-testid="conflict"] button:has-text("Overwrite")');
  await page.waitForSelector('[data-testid="conflict"]', { state: 'detached' });
  assert.match(readFileSync(file, 'utf8'), /"hero ready"/);
});

test('runs the demo scene and highlights the nodes that ran', async () => {
  await page.click('[data-tab="run"]');
  await page.waitForSelector('[data-field="scene"] option', { state: 'attached' });
  await page.fill('[data-field="ticks"]', '60');
  await page.click('[data-testid="run"]');
  await page.waitForSelector('[data-trace-index]');
  const rec = page.locator('.trace-rec.notify.mine').first();
  await rec.click();
  await page.waitForSelector('[data-executed="true"]');
  const lit = await page.locator('[data-executed="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')));
  for (const n of ['count', 'get', 'inc', 'say']) assert.ok(lit.includes(n), `${n} ran: ${lit}`);
  assert.ok(!lit.includes('hi'), 'begin_play nodes did not run for a footstep');
  await shot('07-debugger');
});

test('an asset renamed on disk updates the palette and a node diagnostic without reload', async () => {
  await page.click('[data-tab="problems"]');
  assert.equal(await page.locator('[data-node-id="left"] [data-diagnostic-code]').count(), 0);
  const seq = join(A, 'run.animseq');
  const before = readFileSync(seq, 'utf8');
  const marker = await page.evaluate(() => (window.__marker = Math.random()));
  writeFileSync(seq, before.replace('id: "footstep_l"', 'id: "footstep_left"'));
  const kind = 'event animseq::fef88abd-e6e0-4983-9d3e-379b80acc9bd.footstep_left';
  await page.waitForSelector(`[data-palette-kind="${kind}"]`, { timeout: 20000 });
  await page.waitForSelector('[data-node-id="left"] [data-diagnostic-code="E0312"]', { timeout: 20000 });
  assert.equal(await page.evaluate(() => window.__marker), marker, 'no reload');
  assert.match(await page.locator('[data-testid="palette-change"]').innerText(), /footstep_left/);
  await page.waitForSelector('[data-problem-code="E0312"]');
  await page.click('[data-problem-code="E0312"]');
  await page.waitForSelector('[data-node-id="left"].selected, .react-flow__node.selected [data-node-id="left"]');
  await shot('08-live-rename');
  writeFileSync(seq, before);
  await page.waitForSelector('[data-node-id="left"] [data-diagnostic-code]', { state: 'detached', timeout: 20000 });
});

test('performance: 1,000 nodes pan (frame rate measured and kept); /api/check of them measured', async () => {
  await openGraph('perf/big.bpg');
  assert.equal(await page.locator('[data-node-id]').count(), 1000);
  await page.waitForTimeout(500);
  const pane = await page.locator('.react-flow__pane').boundingBox();
  // Frame times from the Performance API: requestAnimationFrame timestamps on the page's
  // performance timeline, the pan bracketed by performance marks and measured.
  await page.evaluate(() => {
    performance.clearMarks();
    performance.clearMeasures();
    performance.mark('pan-start');
    window.__frames = [];
    const tick = (t) => {
      window.__frames.push(t);
      if (window.__frames.length < 100000 && !window.__stop) requestAnimationFrame(tick);
    };
    window.__stop = false;
    requestAnimationFrame(tick);
  });
  const x0 = pane.x + pane.width / 2;
  const y0 = pane.y + pane.height / 2;
  await page.mouse.move(x0, y0);
  // Left-drag on empty canvas box-selects; the middle (or right) button pans.
  await page.mouse.down({ button: 'middle' });
  for (let i = 1; i <= 90; i++) {
    const a = (i / 90) * Math.PI * 2;
    await page.mouse.move(x0 + Math.sin(a) * 300, y0 + (1 - Math.cos(a)) * 120);
    await page.waitForTimeout(16);
  }
  await page.mouse.up({ button: 'middle' });
  const { frames, measured } = await page.evaluate(() => {
    window.__stop = true;
    performance.mark('pan-end');
    const m = performance.measure('pan', 'pan-start', 'pan-end');
    const start = performance.getEntriesByName('pan-start')[0].startTime;
    return { frames: window.__frames.filter((t) => t >= start), measured: m.duration };
  });
  assert.ok(frames.length > 10, `frames: ${frames.length}`);
  const span = (frames[frames.length - 1] - frames[0]) / 1000;
  const fps = (frames.length - 1) / span;
  const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const p95 = gaps[Math.floor(gaps.length * 0.95)];
  const check = await page.evaluate(async () => {
    const token = new URLSearchParams(location.search).get('token');
    const doc = await (await fetch('/api/graph?path=perf%2Fbig.bpg')).json();
    const times = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const r = await fetch('/api/check', {
        method: 'POST',
        headers: { 'X-Sinew-Token': token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ path: 'perf/big.bpg', model: doc.model }),
      });
      await r.json();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return { median: times[5], max: times[9] };
  });
  metrics.pan_1000 = { fps: Number(fps.toFixed(1)), p95_frame_ms: Number(p95.toFixed(1)), seconds: Number(span.toFixed(2)), measured_ms: Math.round(measured) };
  metrics.check_1000_from_page_ms = { median: Number(check.median.toFixed(1)), max: Number(check.max.toFixed(1)) };
  console.log('metrics', JSON.stringify(metrics));
  await shot('09-big-graph');
  // The frame rate is a measurement, not a pass/fail gate (performance goals are shown by
  // measurements written to docs/benchmarks.md, never by timed tests): it is printed and kept
  // in target/studio-e2e/metrics.json with the machine's load. What the test asserts is that
  // the view really panned (frames were drawn while the middle button dragged).
  const [load] = loadavg();
  metrics.pan_1000.load_average = Number(load.toFixed(1));
  metrics.pan_1000.cores = cpus().length;
  assert.ok(fps > 0 && Number.isFinite(fps), `panning drew no frames (${fps})`);
});
