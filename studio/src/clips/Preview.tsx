// The 3-D preview (three.js): the clip's poses from /api/poses (the server's sampler and forward
// kinematics, so the page shows what the runtime plays) drawn as joints and bone segments on a
// floor grid with the root-motion path. Play/pause, speed and loop drive the shared playhead;
// scrubbing the timeline is a seek and fires nothing, while playing flashes each notify it
// crosses (`(from, to]`, as the crossings rules).
import { useEffect, useRef, useState } from 'react';
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { clipsApi, type Clip, type Frame } from './api';
import { loadSkinned, type Skinned } from './mesh';
import { crossed } from './model';

interface Props {
  path: string;
  clip: Clip;
  model: string | null;
  time: number;
  setTime: (t: number) => void;
  /** A played frame's time, for the timeline's playhead (playback renders no React tree). */
  onFrame: (t: number) => void;
  onCross: (ids: string[]) => void;
}

const MAX_FRAMES = 10000;

export function Preview({ path, clip, model, time, setTime, onFrame, onCross }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const scrub = useRef<HTMLInputElement>(null);
  const shownTime = useRef<HTMLSpanElement>(null);
  const [frames, setFrames] = useState<{ fps: number; list: Frame[] } | null>(null);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [loop, setLoop] = useState(clip.looping);
  const [note, setNote] = useState<string | null>(null);
  const [fps, setFps] = useState(0);
  const view = useRef<{ draw: (f: Frame) => void; dispose: () => void } | null>(null);
  // The playhead: the `time` prop when it changes (a seek, a stop), the played time in between.
  const timeRef = useRef(time);
  const timeProp = useRef(time);
  if (timeProp.current !== time) {
    timeProp.current = time;
    timeRef.current = time;
  }
  const live = useRef({ playing, speed, loop, clip, frames, setTime, onFrame, onCross });
  live.current = { playing, speed, loop, clip, frames, setTime, onFrame, onCross };

  // Poses for the whole clip, once per clip version.
  useEffect(() => {
    let gone = false;
    const rate = Math.max(1, Math.min(60, Math.floor((MAX_FRAMES - 1) / clip.duration)));
    clipsApi
      .poses(path, 0, clip.duration, rate)
      .then((r) => !gone && setFrames({ fps: rate, list: r.frames }))
      .catch((e) => !gone && setNote(`poses: ${e.message}`));
    return () => {
      gone = true;
    };
  }, [path, clip.duration]);

  // The three.js scene, built when the poses arrive.
  useEffect(() => {
    const el = canvas.current;
    if (!el || !frames || frames.list.length === 0) return;
    let renderer: THREE.WebGLRenderer;
    try {
      renderer = new THREE.WebGLRenderer({ canvas: el, antialias: false, preserveDrawingBuffer: true });
    } catch (e) {
      setNote(`WebGL is not available: ${(e as Error).message}`);
      return;
    }
    // three.js writes its own `data-engine` ("three.js r187"); the contract's hook is "three".
    el.setAttribute('data-engine', 'three');
    const bones = frames.list[0].bones;
    const index = new Map(bones.map((b, i) => [b.name, i]));
    const parents = bones.map((b) => (b.parent === null ? -1 : (index.get(b.parent) ?? -1)));
    // The extent of every joint over the clip sizes the joints, the grid and the camera.
    const box = new THREE.Box3();
    for (const f of frames.list) for (const b of f.bones) box.expandByPoint(new THREE.Vector3(...(b.world.translation as [number, number, number])));
    const size = Math.max(box.getSize(new THREE.Vector3()).length(), 1e-3);
    const center = box.getCenter(new THREE.Vector3());
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(0x141418);
    const camera = new THREE.PerspectiveCamera(45, el.clientWidth / Math.max(el.clientHeight, 1), size / 100, size * 100);
    camera.position.set(center.x + size * 0.9, center.y + size * 0.6, center.z + size * 1.2);
    const controls = new OrbitControls(camera, el);
    controls.target.copy(center);
    controls.update();
    const grid = new THREE.GridHelper(size * 3, 20, 0x555566, 0x2c2c34);
    grid.position.set(center.x, box.min.y, center.z);
    scene.add(grid);
    // Joints: one instanced draw of a coarse sphere, opaque (no blending to rasterize), drawn
    // over the mesh by their render order.
    const joint = new THREE.SphereGeometry(size * 0.012, 8, 6);
    const joints = new THREE.InstancedMesh(joint, new THREE.MeshBasicMaterial({ color: 0xffd166, depthTest: false }), bones.length);
    joints.renderOrder = 2;
    scene.add(joints);
    scene.add(new THREE.HemisphereLight(0xffffff, 0x444455, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.5);
    sun.position.set(center.x + size, center.y + size * 2, center.z + size);
    scene.add(sun);
    let mesh: Skinned | null = null;
    const segGeo = new THREE.BufferGeometry();
    const seg = new Float32Array(bones.length * 6);
    segGeo.setAttribute('position', new THREE.BufferAttribute(seg, 3));
    const segments = new THREE.LineSegments(segGeo, new THREE.LineBasicMaterial({ color: 0xe6e6ea, depthTest: false }));
    segments.renderOrder = 2;
    scene.add(segments);
    // The root-motion path on the floor.
    const path = new THREE.BufferGeometry().setFromPoints(
      frames.list.map((f) => new THREE.Vector3(f.root_motion.translation[0], box.min.y + size * 0.002, f.root_motion.translation[2])),
    );
    scene.add(new THREE.Line(path, new THREE.LineBasicMaterial({ color: 0x4fc3f7 })));
    const m = new THREE.Matrix4();
    let drawn = 0;
    let spent = 0;
    const draw = (f: Frame) => {
      const t0 = performance.now();
      const w = el.clientWidth;
      const h = el.clientHeight;
      // At most 1.5 device pixels per CSS pixel: software rasterizers pay for every pixel.
      const ratio = Math.min(devicePixelRatio, 1.5);
      if (renderer.domElement.width !== Math.floor(w * ratio) || renderer.domElement.height !== Math.floor(h * ratio)) {
        renderer.setPixelRatio(ratio);
        renderer.setSize(w, h, false);
        camera.aspect = w / Math.max(h, 1);
        camera.updateProjectionMatrix();
      }
      f.bones.forEach((b, i) => {
        const [x, y, z] = b.world.translation;
        m.makeTranslation(x, y, z);
        joints.setMatrixAt(i, m);
        const p = parents[i];
        const q = p >= 0 ? f.bones[p].world.translation : b.world.translation;
        seg.set([q[0], q[1], q[2], x, y, z], i * 6);
      });
      mesh?.apply(f);
      joints.instanceMatrix.needsUpdate = true;
      segGeo.attributes.position.needsUpdate = true;
      segGeo.computeBoundingSphere();
      renderer.render(scene, camera);
      spent += performance.now() - t0;
      if (++drawn % 10 === 0) {
        // The mean time one frame takes to draw (scene update and WebGL calls), for the benchmark.
        el.setAttribute('data-draw-ms', (spent / 10).toFixed(2));
        spent = 0;
      }
    };
    view.current = {
      draw,
      dispose: () => {
        controls.dispose();
        renderer.dispose();
      },
    };
    controls.addEventListener('change', () => draw(frameAt(timeRef.current)));
    draw(frameAt(timeRef.current));
    el.setAttribute('data-rendered', 'true');
    let gone = false;
    if (model)
      loadSkinned(model, frames.list[0])
        .then((m) => {
          if (gone) return;
          mesh = m;
          scene.add(m.root);
          el.setAttribute('data-mesh', 'true');
          setNote(`Skinned mesh of ${model} (${m.matched} of ${bones.length} bones matched).`);
          draw(frameAt(timeRef.current));
        })
        .catch((e) => !gone && setNote(`The mesh of ${model} cannot be loaded by three.js (${(e as Error).message}): bones alone.`));
    return () => {
      gone = true;
      view.current?.dispose();
      view.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [frames]);

  const frameAt = (t: number): Frame => {
    const f = live.current.frames!;
    const i = Math.min(Math.max(Math.round(t * f.fps), 0), f.list.length - 1);
    return f.list[i];
  };

  // The playhead moved (seek, drag or stop): draw that frame, show that time.
  useEffect(() => {
    if (view.current && frames) view.current.draw(frameAt(time));
    if (scrub.current) scrub.current.value = String(time);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [time, frames]);

  // Unmounted (another clip, a new version): a stopping playback leaves the page's time alone.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  // Playback: advance the playhead by wall time × speed; crossings fire only here.
  useEffect(() => {
    if (!playing) return;
    let last = performance.now();
    let counted = 0;
    let since = last;
    let raf = 0;
    const tick = (now: number) => {
      const { clip: c, speed: s, loop: l } = live.current;
      const d = c.duration;
      const from = timeRef.current;
      let to = from + ((now - last) / 1000) * s;
      last = now;
      let stop = false;
      if (to >= d) {
        if (l) to = to % d;
        else {
          to = d;
          stop = true;
        }
      }
      const hit = crossed(c.notifies, from, to, d, l);
      if (hit.length) live.current.onCross(hit);
      // The frame is drawn here and the playhead, scrub bar and clock moved directly: no
      // render of the page per frame (the time state is set when playback stops).
      timeRef.current = to;
      view.current?.draw(frameAt(to));
      live.current.onFrame(to);
      if (scrub.current) scrub.current.value = String(to);
      if (shownTime.current) shownTime.current.textContent = `${to.toFixed(3)} s`;
      counted++;
      if (now - since >= 1000) {
        setFps(Math.round((counted * 1000) / (now - since)));
        counted = 0;
        since = now;
      }
      if (stop) setPlaying(false);
      else raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => {
      cancelAnimationFrame(raf);
      // Stopped or paused: the page's time is where playback got to.
      if (mounted.current) live.current.setTime(timeRef.current);
    };
  }, [playing]);

  return (
    <div className="pv">
      <div className="pv-tools">
        <button
          data-testid="play"
          onClick={() => {
            if (!playing && time >= clip.duration && !loop) setTime(0);
            setPlaying(!playing);
          }}
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <label>
          speed
          <select value={speed} onChange={(e) => setSpeed(Number(e.target.value))} data-testid="speed">
            {[0.1, 0.25, 0.5, 1, 1.5, 2].map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={loop} onChange={(e) => setLoop(e.target.checked)} data-testid="loop" /> loop
        </label>
        <input
          type="range"
          className="pv-scrub"
          data-testid="scrub"
          min={0}
          max={clip.duration}
          step={1 / clip.sample_rate / 4}
          ref={scrub}
          defaultValue={time}
          onChange={(e) => setTime(Number(e.target.value))}
        />
        <span className="pv-time" ref={shownTime}>
          {time.toFixed(3)} s
        </span>
        <span className="muted" data-testid="preview-fps">
          {playing ? `${fps} fps` : ''}
        </span>
      </div>
      <canvas ref={canvas} className="pv-canvas" data-engine="three" data-fps={fps} data-frames={frames?.list.length ?? 0} />
      <div className="pv-note" data-testid="preview-note">
        {note ??
          (model
            ? `Loading the mesh of ${model}…`
            : frames && frames.list[0]?.bones.every((b) => b.parent === null)
              ? 'Bones only, without hierarchy: the clip names no skeleton.'
              : null)}
      </div>
    </div>
  );
}
