// Paste of 200 nodes and its undo on the 1,000-node graph, measured for two builds of the page
// in one run, alternated (A, B, A, B, …) so both see the same machine load (docs/benchmarks.md,
// "Paste and undo of 200 nodes"). Each build is a `npm run build` output folder handed to the
// server as SINEW_STUDIO_DIST; every round is a fresh server, browser and page.
//
//   node bench/paste.mjs A_DIST B_DIST [rounds=4] [repeats=3]
//   PROFILE=dir node bench/paste.mjs …   (also a CPU profile of each action: dir/NAME.cpuprofile)
//
// Per action: wall time from performance.now() in the page until the DOM shows the result
// (polled every animation frame, as editor.test.mjs does), and the renderer main thread's
// script and total task time over that span (CDP Performance.getMetrics, thread ticks).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bigGraph, machine, pageWork, startSession, waitAllShown } from '../e2e/harness.mjs';

const [a, b, roundsArg, repeatsArg] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/paste.mjs A_DIST B_DIST [rounds] [repeats]');
  process.exit(2);
}
const builds = [
  { name: 'A', dist: resolve(a) },
  { name: 'B', dist: resolve(b) },
];
const rounds = Number(roundsArg ?? 4);
const repeats = Number(repeatsArg ?? 3);
const profileDir = process.env.PROFILE ? resolve(process.env.PROFILE) : null;
/** TRACE=dir: a Chrome trace (devtools.timeline) of each action instead of a CPU profile. */
const traceDir = process.env.TRACE ? resolve(process.env.TRACE) : null;
if (traceDir) mkdirSync(traceDir, { recursive: true });
if (profileDir) mkdirSync(profileDir, { recursive: true });

/** Past the debounced check after an edit, until the page's main thread has been idle for a
 * whole 50 ms idle period three times in a row (its answer applied and drawn). */
async function settle(page) {
  await page.evaluate(
    () =>
      new Promise((done) => {
        let quiet = 0;
        const deadline = performance.now() + 30000;
        const idle = (d) => {
          quiet = d.timeRemaining() >= 49 ? quiet + 1 : 0;
          if (quiet >= 3 || performance.now() > deadline) done();
          else setTimeout(() => requestIdleCallback(idle), 50);
        };
        setTimeout(() => requestIdleCallback(idle), 300);
      }),
  );
}

async function measureOne(build, round) {
  process.env.SINEW_STUDIO_DIST = build.dist;
  const s = await startSession({
    prefix: 'sinew-paste-bench-',
    clipboard: true,
    prepare: (p) => {
      mkdirSync(join(p.G, 'perf'), { recursive: true });
      writeFileSync(join(p.G, 'perf', 'big.bpg'), bigGraph(1000));
    },
    timeout: 60000,
  });
  const { page } = s;
  const out = [];
  /** React Flow store updates per action (the page's test hook; null for a page without it). */
  const updates = {};
  try {
    await page.goto(`${s.url}&graph=${encodeURIComponent('perf/big.bpg')}`);
    await page.waitForSelector('.app[data-ready="true"]', { timeout: 60000 });
    await page.waitForSelector('[data-node-id]', { state: 'attached' });
    await waitAllShown(page, 60000);
    const text = bigGraph(200).replace('graph big', 'graph clip');
    await page.evaluate((t) => navigator.clipboard.writeText(t), text);
    const pane = await page.locator('.react-flow__pane').boundingBox();
    await page.mouse.move(pane.x + pane.width / 2 + 200, pane.y + 80);
    const timed = (name, i, act, done) =>
      pageWork(page, async () => {
        const cdp = profileDir ? await page.context().newCDPSession(page) : null;
        if (cdp) {
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
          await cdp.send('Profiler.start');
        }
        if (traceDir) await s.browser.startTracing(page, { path: join(traceDir, `${build.name}-${round}-${i}-${name}.json`), categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing'] });
        const u0 = await page.evaluate(() => window.__sinewFlow?.().updates ?? -1);
        const t0 = await page.evaluate(() => performance.now());
        await act();
        await page.waitForFunction(done, undefined, { polling: 'raf', timeout: 60000 });
        const ms = Math.round((await page.evaluate(() => performance.now())) - t0);
        const u1 = await page.evaluate(() => window.__sinewFlow?.().updates ?? -1);
        updates[name] = u0 < 0 ? null : u1 - u0;
        if (traceDir) await s.browser.stopTracing();
        if (cdp) {
          const { profile } = await cdp.send('Profiler.stop');
          writeFileSync(join(profileDir, `${build.name}-${round}-${i}-${name}.cpuprofile`), JSON.stringify(profile));
          await cdp.detach();
        }
        return ms;
      });
    for (let i = 0; i < repeats; i++) {
      const paste = await timed('paste', i, () => page.keyboard.press('Control+v'), () => document.querySelectorAll('.react-flow__node').length === 1200);
      // The check that follows an edit (250 ms later) is not part of the next action.
      await settle(page);
      const undo = await timed('undo', i, () => page.keyboard.press('Control+z'), () => document.querySelectorAll('.react-flow__node').length === 1000);
      await settle(page);
      out.push({ build: build.name, round, i, paste_ms: paste.result, paste_script_ms: paste.work.script_ms, paste_tasks_ms: paste.work.tasks_ms, undo_ms: undo.result, undo_script_ms: undo.work.script_ms, undo_tasks_ms: undo.work.tasks_ms, flow_updates: { ...updates }, ...machine() });
      console.log(JSON.stringify(out[out.length - 1]));
    }
  } finally {
    await s.close();
  }
  return out;
}

const rows = [];
for (let r = 0; r < rounds; r++) for (const build of builds) rows.push(...(await measureOne(build, r)));

const med = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const keys = ['paste_ms', 'paste_script_ms', 'paste_tasks_ms', 'undo_ms', 'undo_script_ms', 'undo_tasks_ms'];
for (const build of builds) {
  const mine = rows.filter((x) => x.build === build.name);
  const summary = Object.fromEntries(keys.map((k) => [k, med(mine.map((x) => x[k]))]));
  console.log(`median ${build.name} (${build.dist}, n=${mine.length}):`, JSON.stringify(summary));
}
console.log('load averages seen:', [...new Set(rows.map((x) => x.load_average))].join(', '));
