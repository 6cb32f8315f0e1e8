// End-to-end, round 2 (studio.md "Amended: the editor a designer keeps open"): each designer
// task done in Debian's Chromium against the real `sinew studio`, judged through the saved file,
// the API or the page's test hooks. Screenshots go to target/studio-e2e/editor-*.png, the
// measurements to target/studio-e2e/editor-metrics.json (docs/benchmarks.md).
//
//   cargo build && (cd studio && SINEW_BIN=../target/debug/sinew npm run e2e)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { bigGraph, pageWork, startSession, waitAllShown } from './harness.mjs';

const WIRES = `graph wires

var n: int = 0

node start = event begin_play at (0, 0)
node a = debug.log { message = "a" } at (300, 0)
node b = debug.log { message = "b" } at (600, 0)
node get = var.get n at (0, 260)
node str = string.from_int at (300, 260)
node c = debug.log at (600, 260)

start.then -> a.exec
a.then -> b.exec
get.value -> str.a
str.out -> c.message
b.then -> c.exec
`;
let session;
let url;
let page;
let G;
let wiresFile;
const metrics = {};

async function shot(name) {
  await session.shot(`editor-${name}`);
}

async function center(sel) {
  const b = await page.locator(sel).first().boundingBox();
  assert.ok(b, `no box for ${sel}`);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

async function open(path, timeout = 15000) {
  await page.goto(`${url}&graph=${encodeURIComponent(path)}`);
  await page.waitForSelector('.app[data-ready="true"]', { timeout });
  // Attached, not visible: in the far view nodes are drawn on one canvas (FarPicture).
  await page.waitForSelector('[data-node-id]', { state: 'attached' });
  await waitAllShown(page, timeout);
}

async function freshWires() {
  writeFileSync(wiresFile, WIRES);
  await open('edit/wires.bpg');
}

const links = () => page.locator('[data-link]').evaluateAll((els) => els.map((e) => e.getAttribute('data-link')).sort());
const nodeIds = () => page.locator('.react-flow__node [data-node-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')).sort());
const selectedIds = () => page.locator('.react-flow__node.selected [data-node-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')).sort());

async function saveAndRead(file = wiresFile) {
  await page.keyboard.press('Control+s');
  await page.waitForFunction(() => !document.querySelector('.app')?.hasAttribute('data-dirty'));
  return readFileSync(file, 'utf8');
}

/** A point of the canvas with nothing on it (screen coordinates): above the fitted graph. */
async function emptySpot(dx = 0, dy = 0) {
  const pane = await page.locator('.react-flow__pane').boundingBox();
  return { x: pane.x + pane.width / 2 + 200 + dx, y: pane.y + 80 + dy };
}

before(async () => {
  session = await startSession({
    prefix: 'sinew-studio-editor-',
    clipboard: true,
    prepare: (p) => {
      mkdirSync(join(p.G, 'edit'), { recursive: true });
      mkdirSync(join(p.G, 'perf'), { recursive: true });
      writeFileSync(join(p.G, 'perf', 'big.bpg'), bigGraph(1000));
    },
  });
  ({ url, page } = session);
  G = session.project.G;
  wiresFile = join(G, 'edit', 'wires.bpg');
});

after(async () => {
  await session?.close({ metrics, file: 'editor-metrics.json' });
  console.log('editor metrics', JSON.stringify(metrics));
});

test('wires: click + Delete, Alt+click on a pin, dragging an end off; each one undo step', async () => {
  await freshWires();
  // click a wire, Delete
  const w = page.locator('[data-link="a.then -> b.exec"] .sn-wire-hit');
  const box = await w.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForSelector('.react-flow__edge.selected [data-link="a.then -> b.exec"]', { state: 'attached' });
  await page.keyboard.press('Delete');
  await page.waitForSelector('[data-link="a.then -> b.exec"]', { state: 'detached' });
  // Alt+click a pin cuts its wires
  const p = await center('[data-pin="str.out"]');
  await page.keyboard.down('Alt');
  await page.mouse.click(p.x, p.y);
  await page.keyboard.up('Alt');
  await page.waitForSelector('[data-link="str.out -> c.message"]', { state: 'detached' });
  // drag the wire's end off its input and drop it on empty canvas
  const q = await center('[data-pin="str.a"]');
  const e = await emptySpot();
  await page.mouse.move(q.x, q.y);
  await page.mouse.down();
  await page.mouse.move(q.x + 60, q.y + 80, { steps: 5 });
  await page.mouse.move(e.x, e.y, { steps: 5 });
  await page.mouse.up();
  await page.waitForSelector('[data-link="get.value -> str.a"]', { state: 'detached' });
  assert.equal(await page.locator('[data-testid="quick-add"]').count(), 0, 'no search for a wire dropped off');
  await shot('wires-cut');
  const text = await saveAndRead();
  assert.doesNotMatch(text, /a\.then -> b\.exec|str\.out -> c\.message|get\.value -> str\.a/);
  assert.match(text, /start\.then -> a\.exec/);
  // three actions, three undo steps
  for (const l of ['get.value -> str.a', 'str.out -> c.message', 'a.then -> b.exec']) {
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+z');
    await page.waitForSelector(`[data-link="${l}"]`, { state: 'attached' });
  }
});

test('deleting a node with its wires is one undo step', async () => {
  await freshWires();
  await page.locator('[data-node-id="str"] .sn-header').click();
  await page.keyboard.press('Delete');
  await page.waitForSelector('[data-node-id="str"]', { state: 'detached' });
  assert.equal((await links()).filter((l) => l.includes('str.')).length, 0);
  await page.keyboard.press('Control+z');
  await page.waitForSelector('[data-node-id="str"]');
  await page.waitForSelector('[data-link="get.value -> str.a"]', { state: 'attached' });
  await page.waitForSelector('[data-link="str.out -> c.message"]', { state: 'attached' });
  const text = await saveAndRead();
  assert.equal(text, WIRES, 'one undo gives the graph back, byte for byte');
});

test('selection: box select, Ctrl/Shift+click adds, Ctrl+A selects all nodes and no page text', async () => {
  await freshWires();
  const a = await page.locator('[data-node-id="a"]').boundingBox();
  const b = await page.locator('[data-node-id="b"]').boundingBox();
  await page.mouse.move(a.x - 20, a.y - 30);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width + 20, b.y + b.height + 20, { steps: 8 });
  await page.mouse.up();
  assert.deepEqual(await selectedIds(), ['a', 'b']);
  await page.locator('[data-node-id="start"] .sn-header').click();
  await page.keyboard.down('Control');
  await page.locator('[data-node-id="get"] .sn-header').click();
  await page.keyboard.up('Control');
  await page.keyboard.down('Shift');
  await page.locator('[data-node-id="c"] .sn-header').click();
  await page.keyboard.up('Shift');
  assert.deepEqual(await selectedIds(), ['c', 'get', 'start']);
  await page.keyboard.press('Control+a');
  assert.deepEqual(await selectedIds(), ['a', 'b', 'c', 'get', 'start', 'str']);
  assert.equal(await page.evaluate(() => String(window.getSelection())), '', 'no page text selected');
  await shot('selected');
});

test('copy, paste and cut through the system clipboard as .bpg text; duplicate; bad pastes change nothing', async () => {
  await freshWires();
  await page.locator('[data-node-id="a"] .sn-header').click();
  await page.keyboard.down('Shift');
  await page.locator('[data-node-id="b"] .sn-header').click();
  await page.keyboard.up('Shift');
  await page.keyboard.press('Control+c');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /^graph wires$/m);
  assert.match(copied, /^node a = debug\.log \{ message = "a" \} at \(300, 0\)$/m);
  assert.match(copied, /^a\.then -> b\.exec$/m);
  assert.doesNotMatch(copied, /start/, 'only the selection and the wires between its nodes');
  // paste at the cursor: fresh ids, the wire between them kept
  const e = await emptySpot(-300, -40);
  await page.mouse.move(e.x, e.y);
  await page.keyboard.press('Control+v');
  await page.waitForSelector('[data-link="a_2.then -> b_2.exec"]', { state: 'attached' });
  const pasted = await page.locator('[data-node-id="a_2"]').boundingBox();
  assert.ok(Math.abs(pasted.x - e.x) < 40 && Math.abs(pasted.y - e.y) < 60, 'pasted at the cursor');
  // text from a text editor pastes too
  await page.evaluate(() => navigator.clipboard.writeText('graph other\n\nnode hey = debug.log { message = "hey" } at (5, 5)\n'));
  await page.keyboard.press('Control+v');
  await page.waitForSelector('[data-node-id="hey"]');
  await page.keyboard.press('Control+z');
  await page.waitForSelector('[data-node-id="hey"]', { state: 'detached' });
  // duplicate
  await page.locator('[data-node-id="c"] .sn-header').click();
  await page.keyboard.press('Control+d');
  await page.waitForSelector('[data-node-id="c_2"]');
  // cut
  await page.keyboard.press('Control+x');
  await page.waitForSelector('[data-node-id="c_2"]', { state: 'detached' });
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^node c_2 = debug\.log/m);
  // not a graph, and too many nodes: a message, nothing lost
  const before = await nodeIds();
  await page.evaluate(() => navigator.clipboard.writeText('Dear diary, no graph today.'));
  await page.keyboard.press('Control+v');
  await page.waitForFunction(() => /not a graph/.test(document.querySelector('[data-testid="toast"]')?.textContent ?? ''));
  await page.evaluate(() => {
    const lines = ['graph huge', ''];
    for (let i = 0; i < 100000; i++) lines.push(`node n${i} = int.add at (${i}, 0)`);
    return navigator.clipboard.writeText(lines.join('\n'));
  });
  await page.keyboard.press('Control+v');
  await page.waitForFunction(() => /100000 nodes/.test(document.querySelector('[data-testid="toast"]')?.textContent ?? ''));
  assert.deepEqual(await nodeIds(), before);
  await shot('pasted');
  const text = await saveAndRead();
  assert.match(text, /^node a_2 = debug\.log \{ message = "a" \} at \(-?\d+, -?\d+\)$/m);
  assert.match(text, /^a_2\.then -> b_2\.exec$/m);
});

test('search at the cursor: right-click and Space, arrow keys and Enter', async () => {
  await freshWires();
  const e = await emptySpot();
  await page.mouse.click(e.x, e.y, { button: 'right' });
  await page.waitForSelector('[data-testid="quick-add"] input');
  await page.keyboard.type('branch');
  await page.waitForSelector('[data-search-kind="flow.branch"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node-id="branch"]');
  // Space at the cursor; ArrowDown picks the second result
  await page.mouse.move(e.x - 200, e.y);
  await page.keyboard.press('Space');
  await page.waitForSelector('[data-testid="quick-add"] input');
  await page.keyboard.type('add');
  await page.waitForFunction(() => document.querySelectorAll('[data-search-kind]').length >= 2 && document.querySelector('[data-testid="quick-add"] input').value === 'add');
  const kinds = await page.locator('[data-search-kind]').evaluateAll((els) => els.map((x) => x.getAttribute('data-search-kind')));
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="quick-add"]', { state: 'detached' });
  const status = await page.locator('[data-testid="status"]').innerText();
  assert.match(status, /8 nodes/);
  const text = await saveAndRead();
  const kind = kinds[1];
  assert.ok(text.includes(`= ${kind} at`) || text.includes(`= ${kind} `), `${kind} added:\n${text}`);
});

test('a wire dropped on empty canvas: the search offers compatible nodes and wires the new one in', async () => {
  await freshWires();
  const p = await center('[data-pin="get.value"]');
  const e = await emptySpot(-200, 40);
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  await page.mouse.move(p.x + 40, p.y + 40, { steps: 4 });
  // live feedback: compatible pins light up, incompatible ones dim
  await page.waitForSelector('.sn-pin.compatible');
  const fb = await page.evaluate(() => ({
    ok: [...document.querySelectorAll('.sn-pin.compatible [data-pin]')].map((x) => x.getAttribute('data-pin')),
    no: [...document.querySelectorAll('.sn-pin.incompatible [data-pin]')].map((x) => x.getAttribute('data-pin')),
  }));
  assert.ok(fb.ok.includes('str.a'), `int output into int input: ${fb.ok}`);
  assert.ok(fb.no.includes('c.message') && fb.no.includes('a.exec'), `string and exec inputs dim: ${fb.no}`);
  await shot('drag-feedback');
  await page.mouse.move(e.x, e.y, { steps: 6 });
  await page.mouse.up();
  await page.waitForSelector('[data-testid="quick-add"] input');
  const offered = await page.locator('[data-search-kind]').evaluateAll((els) => els.map((x) => x.getAttribute('data-search-kind')));
  assert.ok(offered.includes('int.to_float') && !offered.includes('debug.log') && !offered.includes('flow.branch'), offered.join(' '));
  await page.keyboard.type('to float');
  await page.waitForSelector('[data-search-kind="int.to_float"]');
  await page.locator('[data-search-kind="int.to_float"]').click();
  await page.waitForSelector('[data-link="get.value -> to_float.a"]', { state: 'attached' });
  const text = await saveAndRead();
  assert.match(text, /^get\.value -> to_float\.a$/m);
});

test('kind and variable are picked from lists; event titles, source files and pin hover', async () => {
  await freshWires();
  await page.locator('[data-node-id="get"] .sn-header').click();
  await page.click('[data-tab="node"]');
  assert.equal(await page.locator('[data-testid="inspector"] input[data-field="kind"]').count(), 0, 'no free-text kind');
  await page.click('[data-testid="inspector"] [data-field="kind"]');
  await page.fill('[data-field="kind-search"]', 'set variable');
  await page.locator('[data-kind-option="var.set"]').click();
  await page.waitForFunction(() => document.querySelector('[data-node-id="get"]')?.textContent?.includes('var.set n'));
  assert.deepEqual(await page.locator('[data-field="variable"] option').evaluateAll((o) => o.map((x) => x.value)), ['n']);
  // names people read
  await open('demo/hero.bpg');
  const title = await page.locator('[data-node-id="left"] .sn-id').innerText();
  assert.equal(title, 'Run / Footstep L');
  const files = await page
    .locator('.palette-entry[data-palette-kind$=".footstep_l"]')
    .evaluateAll((els) => els.map((e) => e.querySelector('.pe-kind').textContent));
  assert.ok(new Set(files).size === files.length && files.every((f) => f.endsWith('.animseq')), `entries told apart: ${files}`);
  assert.match(await page.locator('[data-pin="count.value"]').first().getAttribute('title'), /^value: int/);
  // readable at fit: every title at least 11 px on screen (a minimum zoom and the far view)
  const px = await page.evaluate(() => {
    const zoom = Number(/scale\(([\d.]+)\)/.exec(document.querySelector('.react-flow__viewport').style.transform)[1]);
    return Math.min(...[...document.querySelectorAll('.sn-id')].map((e) => parseFloat(getComputedStyle(e).fontSize) * zoom));
  });
  assert.ok(px >= 11, `smallest title at fit: ${px} px`);
  assert.equal(await page.locator('[data-node-id="left"] .sn-kind').textContent(), 'run.animseq');
  await shot('names');
});

test('comment boxes around the selection move with their nodes; a double-clicked wire gets a reroute', async () => {
  await freshWires();
  await page.locator('[data-node-id="a"] .sn-header').click();
  await page.keyboard.down('Shift');
  await page.locator('[data-node-id="b"] .sn-header').click();
  await page.keyboard.up('Shift');
  await page.keyboard.press('c');
  await page.waitForSelector('[data-box-id="0"]');
  const before = await page.locator('[data-node-id="a"]').boundingBox();
  const bar = await page.locator('[data-box-id="0"] .sn-box-title').boundingBox();
  await page.mouse.move(bar.x + 10, bar.y + bar.height / 2);
  await page.mouse.down();
  await page.mouse.move(bar.x + 60, bar.y + 80, { steps: 6 });
  await page.mouse.up();
  await page.waitForFunction((y) => document.querySelector('[data-node-id="a"]').getBoundingClientRect().y > y + 30, before.y);
  await shot('box');
  await page.keyboard.press('Control+z');
  await page.waitForFunction((y) => Math.abs(document.querySelector('[data-node-id="a"]').getBoundingClientRect().y - y) < 2, before.y);
  // reroute
  const w = await page.locator('[data-link="b.then -> c.exec"] .sn-wire-hit').boundingBox();
  await page.mouse.dblclick(w.x + w.width / 2, w.y + w.height / 2);
  await page.waitForSelector('[data-link="b.then -> reroute.in"]', { state: 'attached' });
  await page.waitForSelector('[data-link="reroute.out -> c.exec"]', { state: 'attached' });
  assert.equal(await page.locator('[data-node-id="reroute"]').count(), 1);
  await shot('reroute');
});

test('files: Save as, the searchable folder tree', async () => {
  await freshWires();
  page.once('dialog', (d) => d.accept('edit/copy.bpg'));
  await page.click('[data-testid="save-as"]');
  await page.waitForFunction(() => document.querySelector('.app')?.getAttribute('data-open-path') === 'edit/copy.bpg');
  assert.equal(readFileSync(join(G, 'edit', 'copy.bpg'), 'utf8'), WIRES);
  await page.click('[data-testid="graph-picker-button"]');
  await page.fill('[data-testid="graph-search"]', 'copy');
  await page.waitForSelector('[data-graph-path="edit/copy.bpg"]');
  assert.equal(await page.locator('[data-graph-path="demo/hero.bpg"]').count(), 0, 'search filters the tree');
  await page.fill('[data-testid="graph-search"]', '');
  assert.ok(await page.locator('[data-graph-folder="demo"] [data-graph-path="demo/hero.bpg"]').count());
  await page.click('[data-graph-path="edit/wires.bpg"]');
  await page.waitForFunction(() => document.querySelector('.app')?.getAttribute('data-open-path') === 'edit/wires.bpg');
});

test('a banner when the open file no longer parses on disk; the canvas keeps the graph', async () => {
  await freshWires();
  writeFileSync(wiresFile, 'graph wires\nnode = = =\n');
  await page.waitForSelector('[data-testid="disk-broken"]', { timeout: 20000 });
  assert.equal(await page.locator('[data-node-id="a"]').count(), 1);
  await shot('disk-broken');
  writeFileSync(wiresFile, WIRES.replace('"a"', '"a!"'));
  await page.waitForSelector('[data-testid="disk-broken"]', { state: 'detached', timeout: 20000 });
});

test('a busy server (503 with Retry-After) is retried once after the delay, and the page says so', async () => {
  await freshWires();
  let n = 0;
  await page.route('**/api/check', (route) => {
    if (n++ === 0) route.fulfill({ status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' }, body: '{"error":"the studio is busy"}' });
    else route.continue();
  });
  await page.locator('[data-node-id="a"] .sn-header').click();
  await page.keyboard.press('Delete');
  await page.waitForSelector('[data-testid="busy"]');
  assert.match(await page.locator('[data-testid="busy"]').innerText(), /busy; retrying in 1 s/);
  await page.waitForSelector('[data-testid="busy"]', { state: 'detached' });
  assert.equal(n, 2, 'retried once');
  await page.unroute('**/api/check');
});

test('debugger: payload, values, variables before and after, filters, a graph not in the scene', async () => {
  await open('demo/hero.bpg');
  await page.click('[data-tab="run"]');
  await page.waitForSelector('[data-field="scene"] option', { state: 'attached' });
  await page.fill('[data-field="ticks"]', '60');
  await page.click('[data-testid="run"]');
  await page.waitForSelector('.trace-rec.notify.mine');
  await page.locator('.trace-rec.notify.mine').first().click();
  await page.waitForSelector('[data-testid="payload"] [data-payload="event"]');
  await page.waitForSelector('[data-value="count.value"]');
  // an input fed by a slot: `num.a` read what `count` set (the server's `inputs`)
  const counted = (await page.locator('[data-value="count.value"]').first().innerText()).replace(/^value = /, '');
  assert.equal(await page.locator('[data-value="num.a"]').first().innerText(), `a = ${counted}`);
  assert.match(await page.locator('[data-var-after="steps"]').first().innerText(), /\d/);
  await page.waitForSelector('[data-executed="true"]');
  assert.ok(await page.locator('.sn-wire.ran').count(), 'wires that carried execution are marked');
  // ran and selected look different
  await page.locator('[data-node-id="count"] .sn-header').click();
  const style = await page.evaluate(() => {
    const n = document.querySelector('[data-node-id="count"]');
    const s = getComputedStyle(n);
    return { outline: s.outlineColor, shadow: s.boxShadow };
  });
  assert.notEqual(style.outline, 'rgb(255, 209, 102)', `selected outline differs from the ran glow: ${JSON.stringify(style)}`);
  // filter by entity
  const all = await page.locator('[data-trace-index]').count();
  await page.selectOption('[data-field="filter-entity"]', 'hero');
  const mine = await page.locator('[data-trace-index]').count();
  assert.ok(mine > 0 && mine < all, `${mine} of ${all}`);
  await shot('debugger-values');
  // a graph not in the scene
  await freshWires();
  await page.click('[data-tab="run"]');
  await page.fill('[data-field="ticks"]', '10');
  await page.click('[data-testid="run"]');
  await page.waitForSelector('[data-testid="not-in-scene"]');
});

test('the far picture: below zoom 0.3 one canvas draws the graph; a click selects a node, a double-click zooms to it', async () => {
  await open('perf/big.bpg', 60000);
  assert.equal(await page.locator('.canvas').getAttribute('data-zoom-view'), 'tiny');
  await page.waitForSelector('[data-far-picture][data-far-nodes="1000"]');
  // the DOM nodes and wires are out of layout (nothing to paint or hit-test per frame)
  const shown = await page.evaluate(() => [...document.querySelectorAll('.react-flow__node-sinew, .react-flow__edges')].filter((n) => n.getClientRects().length > 0).length);
  assert.equal(shown, 0, 'no DOM node is laid out under the far picture');
  // ... and React Flow mounts no pin and no wire there: each is a subscription to its store that
  // every change wakes (a paste or undo of 200 nodes on this graph, docs/benchmarks.md)
  const mounted = await page.evaluate(() => ({
    pins: document.querySelectorAll('.react-flow__handle').length,
    wires: document.querySelectorAll('.react-flow__edge').length,
    nodes: document.querySelectorAll('.react-flow__node [data-node-id]').length,
    draggable: document.querySelectorAll('.react-flow__node-sinew.draggable').length,
  }));
  assert.deepEqual(mounted, { pins: 0, wires: 0, nodes: 1000, draggable: 0 }, 'the far view mounts nodes without pins or drag handlers, and no wires');
  const flow = await page.evaluate(() => window.__sinewFlow());
  assert.deepEqual([flow.nodes, flow.wires], [1000, 0], 'React Flow holds the nodes, the far picture draws the wires');
  // Ctrl, Shift and Meta presses are no change of React Flow's store (the pointer's modifiers
  // make a click add to the selection)
  await page.keyboard.press('Control');
  await page.keyboard.press('Shift');
  assert.equal((await page.evaluate(() => window.__sinewFlow())).updates, flow.updates, 'a modifier key wakes no subscription');
  // ... nor is a render of the canvas that changes no node (a message shown: the props React
  // Flow keeps in its store are the same functions and arrays)
  await page.evaluate(() => navigator.clipboard.writeText('this is not a graph'));
  await page.keyboard.press('Control+v');
  await page.waitForSelector('[data-testid="toast"]:has-text("Nothing pasted")');
  assert.equal((await page.evaluate(() => window.__sinewFlow())).updates, flow.updates, 'a canvas render changes nothing in React Flow');
  // n41 is drawn where its model position maps to: click it
  const at = await page.evaluate(() => {
    const vp = document.querySelector('.react-flow__viewport');
    const m = new DOMMatrix(getComputedStyle(vp).transform);
    const r = vp.getBoundingClientRect();
    return { x: r.left + (260 + 110) * m.a, y: r.top + (120 + 30) * m.d };
  });
  await page.mouse.click(at.x, at.y);
  await page.waitForFunction(() => [...document.querySelectorAll('.react-flow__node.selected [data-node-id]')].map((e) => e.getAttribute('data-node-id')).join() === 'n41');
  await page.mouse.dblclick(at.x, at.y);
  await page.waitForFunction(() => document.querySelector('.canvas')?.getAttribute('data-zoom-view') === 'near');
  await page.waitForSelector('[data-node-id="n41"]', { state: 'visible' });
  // out of the far view the pins are back and measured: n41's wires are drawn to them
  await page.waitForSelector('[data-pin="n41.a"]', { state: 'visible' });
  await page.waitForSelector('.react-flow__node-sinew.draggable [data-node-id="n41"]');
  await page.waitForSelector('[data-link="n40.out -> n41.a"]', { state: 'attached' });
  await page.waitForSelector('[data-link="n41.out -> n42.a"]', { state: 'attached' });
  assert.equal(await page.locator('[data-testid="quick-add"]').count(), 0, 'a double-click on a node is no search');
  await shot('far-zoomed');
});

test('performance: paste of 200 nodes, its undo, box select of 1,000 nodes (Chromium)', async () => {
  await open('perf/big.bpg', 60000);
  // Each action: wall time from performance.now() in the page until the DOM shows the result
  // (polled every animation frame), and the page's own work meanwhile (CDP Performance
  // metrics: script, layout, style, all main-thread tasks).
  const timed = (act, done) =>
    pageWork(page, async () => {
      const t0 = await page.evaluate(() => performance.now());
      await act();
      await page.waitForFunction(done, undefined, { polling: 'raf', timeout: 60000 });
      return Math.round((await page.evaluate(() => performance.now())) - t0);
    });
  // paste 200 nodes
  const text = bigGraph(200).replace('graph big', 'graph clip');
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  const e = await emptySpot();
  await page.mouse.move(e.x, e.y);
  const asked = [];
  const onRequest = (r) => new URL(r.url()).pathname.startsWith('/api/') && asked.push(new URL(r.url()).pathname);
  page.on('request', onRequest);
  const paste = await timed(() => page.keyboard.press('Control+v'), () => document.querySelectorAll('.react-flow__node').length === 1200);
  page.off('request', onRequest);
  // the pasted text is read by `/api/parse` (its model only; the check after the paste compiles)
  assert.equal(asked[0], '/api/parse', `the paste asked ${asked.join(', ')}`);
  const undo = await timed(() => page.keyboard.press('Control+z'), () => document.querySelectorAll('.react-flow__node').length === 1000);
  // box-select all 1,000 (after a fit, the drag covers the whole graph)
  await page.click('button:has-text("Fit")');
  // The fit has settled: every node lies inside the pane.
  await page.waitForFunction(() => {
    const p = document.querySelector('.react-flow__pane').getBoundingClientRect();
    const vp = document.querySelector('.react-flow__viewport').getBoundingClientRect();
    const m = new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform);
    // the graph spans (0, 0)–(40 × 260, 25 × 120) in flow units
    return vp.left >= p.left && vp.top >= p.top && vp.left + 10400 * m.a <= p.right && vp.top + 3000 * m.d <= p.bottom;
  }, undefined, { polling: 'raf', timeout: 15000 });
  const pane = await page.locator('.react-flow__pane').boundingBox();
  await page.mouse.move(pane.x + 5, pane.y + 5);
  await page.mouse.down();
  await page.mouse.move(pane.x + pane.width - 5, pane.y + pane.height - 5, { steps: 4 });
  const select = await timed(() => page.mouse.up(), () => document.querySelectorAll('.react-flow__node.selected').length === 1000);
  metrics.paste_200_ms = paste.result;
  metrics.paste_200_work = paste.work;
  metrics.undo_paste_200_ms = undo.result;
  metrics.undo_paste_200_work = undo.work;
  metrics.box_select_1000_ms = select.result;
  metrics.box_select_1000_work = select.work;
  console.log('editor metrics', JSON.stringify(metrics));
  await shot('perf');
  assert.ok(existsSync(join(G, 'perf', 'big.bpg')));
});
