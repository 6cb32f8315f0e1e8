// The skinned glTF mesh of a clip imported from a model in the project: the model file from
// /api/model, loaded by three.js's GLTFLoader, its nodes posed each frame with the server's
// `local` transforms (matched by name, as three.js sanitizes node names), so the mesh plays
// exactly the poses the bones show.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import type { Frame } from './api';

export interface Skinned {
  root: THREE.Object3D;
  /** Poses the model's nodes with a frame's local transforms. */
  apply: (f: Frame) => void;
  /** How many of the frame's bones the model has. */
  matched: number;
}

export async function loadSkinned(model: string, first: Frame): Promise<Skinned> {
  const gltf = await new GLTFLoader().loadAsync(`/api/model?path=${encodeURIComponent(model)}`);
  const root = gltf.scene;
  let skinned = 0;
  root.traverse((o) => {
    if ((o as THREE.SkinnedMesh).isSkinnedMesh) {
      skinned++;
      o.frustumCulled = false;
    }
  });
  if (skinned === 0) throw new Error('the model has no skinned mesh');
  const nodes = first.bones.map((b) => root.getObjectByName(THREE.PropertyBinding.sanitizeNodeName(b.name)) ?? null);
  const matched = nodes.filter((n) => n).length;
  if (matched === 0) throw new Error("none of the clip's bones is a node of the model");
  return {
    root,
    matched,
    apply: (f) => {
      f.bones.forEach((b, i) => {
        const n = nodes[i];
        if (!n) return;
        const [x, y, z] = b.local.translation;
        const [qx, qy, qz, qw] = b.local.rotation;
        const [sx, sy, sz] = b.local.scale;
        n.position.set(x, y, z);
        n.quaternion.set(qx, qy, qz, qw);
        n.scale.set(sx, sy, sz);
      });
    },
  };
}
