//! The studio's clip endpoints (`studio.md`, "Amended: animation authoring in the studio")
//! against a real server on port 0: the clip list, a clip as data, edits saved into the
//! file's own text (lossless, atomic, refused with the edit they name), poses equal to
//! `sinew sample`, crossings equal to `sinew crossings`, state machine pictures, and the
//! palette and graph diagnostics following a save.

use serde_json::{Value, json};
use sinew::animseq::{self, ClipEdit, EditError, MarkerPatch, Target, apply_edits};
use sinew::diag::SourceFile;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "support/studio.rs"]
mod harness;
use harness::*;

const WALK: &str = "walk.animseq";
const FOX_WALK: &str = "animations/generated/ded83416-ab6f-474b-9676-de99af79d229/Walk.animseq";

fn assets(s: &Studio) -> PathBuf {
    s.dir.path().join("assets")
}

fn sinew(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn enc(s: &str) -> String {
    s.replace('/', "%2F")
}

fn clip(s: &Studio, path: &str) -> Value {
    let r = s.get(&format!("/api/clip?path={}", enc(path)));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    r.json()
}

fn put(s: &Studio, path: &str, base: &str, edits: Value) -> Reply {
    s.send(
        "PUT",
        &format!("/api/clip?path={}", enc(path)),
        &json!({"base": base, "edits": edits}),
    )
}

fn close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q))
        }
        _ => a.as_f64() == b.as_f64(),
    }
}

#[test]
fn clips_are_listed_sorted_with_their_model() {
    let s = start();
    let r = s.get("/api/clips");
    assert_eq!(r.status, 200);
    let v = r.json();
    let list = v["clips"].as_array().unwrap();
    let paths: Vec<&str> = list.iter().map(|c| c["path"].as_str().unwrap()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    let walk = list.iter().find(|c| c["path"] == WALK).unwrap();
    assert_eq!(walk["notifies"], 2);
    assert_eq!(walk["windows"], 0);
    assert!(walk["model"].is_null());
    let hero = list
        .iter()
        .find(|c| c["path"] == "hero_walk.animseq")
        .unwrap();
    assert_eq!(hero["skeleton"], "hero.skel");
    let fox = list.iter().find(|c| c["path"] == FOX_WALK).unwrap();
    assert_eq!(fox["model"], "models/fox_footsteps.glb");
    assert_eq!(fox["name"], "Walk");
}

#[test]
fn a_clip_is_served_as_data() {
    let s = start();
    let v = clip(&s, WALK);
    assert_eq!(v["path"], WALK);
    assert_eq!(v["version"].as_str().unwrap().len(), 64);
    let text = std::fs::read_to_string(assets(&s).join(WALK)).unwrap();
    assert_eq!(v["source"], text);
    let c = &v["clip"];
    assert_eq!(c["duration"], 1.2);
    assert_eq!(c["sample_rate"], 30);
    let n = &c["notifies"][0];
    assert_eq!(n["id"], "footstep_l");
    assert_eq!(n["time"], 0.3);
    assert!(n["target"].is_null());
    assert_eq!(
        n["fields"][0],
        json!({"name": "surface", "type": "string", "value": "grass"})
    );
    assert_eq!(n["fields"][1]["type"], "float");
    assert_eq!(
        (n["weight_threshold"].as_f64(), n["chance"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    assert_eq!(c["tracks"][0], "hips");
    assert_eq!(c["curves"][0]["name"], "fatigue");
    // The imported fox clip: 24 frames per second.
    assert_eq!(clip(&s, FOX_WALK)["clip"]["sample_rate"], 24);
}

#[test]
fn pose_local_equals_sinew_sample_for_every_bone() {
    let s = start();
    for path in [WALK, FOX_WALK, "hero_walk.animseq", "hero_turn.animseq"] {
        let file = assets(&s).join(path);
        for t in ["0", "0.1", "0.3333", "0.7", "5"] {
            let r = s.get(&format!("/api/pose?path={}&t={t}", enc(path)));
            assert_eq!(r.status, 200);
            let pose = r.json();
            let cli = sinew(&[
                "sample",
                file.to_str().unwrap(),
                "--at",
                t,
                "--format",
                "json",
            ]);
            assert_eq!(pose["t"].as_f64(), cli["time"].as_f64(), "{path} {t}");
            let bones = pose["bones"].as_array().unwrap();
            let want = cli["bones"].as_array().unwrap();
            assert_eq!(bones.len(), want.len(), "{path}");
            for (b, w) in bones.iter().zip(want) {
                assert_eq!(b["name"], w["bone"]);
                for k in ["translation", "rotation", "scale"] {
                    assert!(close(&b["local"][k], &w[k]), "{path} {t} {} {k}", b["name"]);
                }
                assert!(b["world"]["rotation"].as_array().unwrap().len() == 4);
            }
        }
    }
    // One bone, matched as `sample --bone` matches.
    let r = s.get("/api/pose?path=hero_walk.animseq&t=0.3&bone=FOOT_L");
    let v = r.json();
    assert_eq!(v["bones"].as_array().unwrap().len(), 1);
    assert_eq!(v["bones"][0]["name"], "foot_l");
    assert_eq!(v["bones"][0]["parent"], "lower_leg_l");
    let r = s.get("/api/pose?path=hero_walk.animseq&t=0.3&bone=fot_l");
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .contains("did you mean `foot_l`")
    );
}

/// The studio remembers the last clip's pose player (issue 28): a changed clip or skeleton file
/// is never posed from memory.
#[test]
fn a_changed_clip_or_skeleton_is_posed_anew() {
    let s = start();
    let bone = |v: &Value, name: &str| {
        v["bones"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .unwrap()["local"]["translation"]
            .clone()
    };
    let url = "/api/pose?path=hero_walk.animseq&t=0";
    let v = s.get(url).json();
    assert_eq!(bone(&v, "head"), json!([0.0, 0.1, 0.0]));
    assert_eq!(bone(&v, "hips"), json!([0.0, 1.0, 0.0]));
    assert_eq!(s.get(url).json(), v);
    let skel = assets(&s).join("hero.skel");
    let text = std::fs::read_to_string(&skel).unwrap();
    let head = "(name: \"head\", parent: Some(\"neck\"), translation: (0.0, 0.1, 0.0)";
    assert!(text.contains(head));
    std::fs::write(
        &skel,
        text.replace(head, &head.replace("0.1, 0.0)", "0.5, 0.0)")),
    )
    .unwrap();
    assert_eq!(bone(&s.get(url).json(), "head"), json!([0.0, 0.5, 0.0]));
    let clip = assets(&s).join("hero_walk.animseq");
    let text = std::fs::read_to_string(&clip).unwrap();
    let key = "translation: [(0.0, (0.0, 1.0, 0.0)),";
    assert!(text.contains(key));
    std::fs::write(
        &clip,
        text.replace(key, "translation: [(0.0, (0.0, 2.0, 0.0)),"),
    )
    .unwrap();
    assert_eq!(bone(&s.get(url).json(), "hips"), json!([0.0, 2.0, 0.0]));
    // A skeleton that cannot be read any more: the flat skeleton of the track names.
    std::fs::remove_file(&skel).unwrap();
    let flat = s.get(url).json();
    assert!(
        flat["bones"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["parent"].is_null())
    );
}

#[test]
fn world_is_forward_kinematics_and_root_motion_moves() {
    let s = start();
    let v = s.get(&format!("/api/pose?path={WALK}&t=0.6")).json();
    let bones = v["bones"].as_array().unwrap();
    let hips = bones.iter().find(|b| b["name"] == "hips").unwrap();
    assert!(hips["parent"].is_null());
    assert_eq!(hips["world"], hips["local"]);
    let rm = &v["root_motion"]["translation"];
    assert!(rm[2].as_f64().unwrap() > 0.5, "{rm}");
}

#[test]
fn poses_run_from_from_to_to_inclusive_and_are_bounded() {
    let s = start();
    let r = s.get(&format!("/api/poses?path={WALK}&from=0&to=1.2&fps=10"));
    assert_eq!(r.status, 200);
    let frames = r.json()["frames"].as_array().unwrap().clone();
    assert_eq!(frames.len(), 13);
    assert_eq!(frames[12]["t"], 1.2);
    let one = s.get(&format!("/api/pose?path={WALK}&t=0.5")).json();
    assert_eq!(frames[5], one);
    for bad in [
        "fps=0",
        "fps=-3",
        "fps=nan",
        "fps=1000000&to=1000",
        "from=2&to=1&fps=10",
    ] {
        let r = s.get(&format!("/api/poses?path={WALK}&{bad}"));
        assert_eq!(r.status, 400, "{bad}");
        assert!(r.json()["error"].is_string());
    }
    assert_eq!(
        s.get(&format!("/api/poses?path={WALK}&from=0&to=999.9&fps=10"))
            .status,
        200
    );
    assert_eq!(
        s.get(&format!("/api/poses?path={WALK}&from=0&to=1000&fps=10"))
            .status,
        400
    );
}

#[test]
fn crossings_equal_sinew_crossings() {
    let s = start();
    let file = assets(&s).join(WALK);
    for (from, to, looping) in [
        ("0", "1.2", false),
        ("0.2", "5.1", true),
        ("-1", "0.95", true),
    ] {
        let mut q = format!("/api/crossings?path={WALK}&from={from}&to={to}");
        let mut args = vec![
            "crossings",
            file.to_str().unwrap(),
            "--from",
            from,
            "--to",
            to,
        ];
        if looping {
            q.push_str("&looping=true");
            args.push("--looping");
        }
        args.extend(["--format", "json"]);
        let r = s.get(&q);
        assert_eq!(r.status, 200);
        assert_eq!(r.json(), sinew(&args), "{q}");
    }
    let file = assets(&s).join("sword_attack.animseq");
    let args = [
        "crossings",
        file.to_str().unwrap(),
        "--from=0",
        "--to=3",
        "--format",
        "json",
    ];
    let r = s.get("/api/crossings?path=sword_attack.animseq&from=0&to=3");
    assert_eq!(r.json(), sinew(&args));
    assert_eq!(
        s.get(&format!("/api/crossings?path={WALK}&from=0")).status,
        400
    );
    assert_eq!(
        s.get(&format!(
            "/api/crossings?path={WALK}&from=0&to=1&looping=yes"
        ))
        .status,
        400
    );
}

#[test]
fn an_edit_changes_only_its_own_text() {
    let s = start();
    let path = assets(&s).join(WALK);
    let before = std::fs::read_to_string(&path).unwrap();
    let v = clip(&s, WALK);
    let base = v["version"].as_str().unwrap();
    let r = put(
        &s,
        WALK,
        base,
        json!([{"op": "set_notify", "id": "footstep_l", "notify": {"time": 0.4}}]),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let after = std::fs::read_to_string(&path).unwrap();
    assert_eq!(after, before.replacen("time: 0.3,", "time: 0.4,", 1));
    let a = r.json();
    assert_eq!(a["source"], after);
    assert_ne!(a["version"], base);
    assert_eq!(a["format"], 3, "no feature needed a newer format");
    // A stale base is 409 and writes nothing.
    let r = put(
        &s,
        WALK,
        base,
        json!([{"op": "remove_notify", "id": "footstep_r"}]),
    );
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["version"], a["version"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), after);
    // A gating value raises the format to 4, and only then.
    let r = put(
        &s,
        WALK,
        a["version"].as_str().unwrap(),
        json!([{"op": "set_notify", "id": "footstep_r", "notify": {"chance": 0.5}}]),
    );
    assert_eq!(r.status, 200);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        after.replacen("format: 3,", "format: 4,", 1).replacen(
            "Float(0.6))]),\n    ],",
            "Float(0.6))], chance: 0.5),\n    ],",
            1
        )
    );
}

/// Waits until `cond` holds, up to `secs` (through the one waiting helper).
fn wait_until(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    harness::wait::wait_until(deadline, || cond().then_some(())).is_some()
}

#[test]
fn a_renamed_notify_updates_the_palette_and_turns_its_graph_red() {
    let s = start();
    let base = clip(&s, WALK)["version"].as_str().unwrap().to_string();
    let r = put(
        &s,
        WALK,
        &base,
        json!([
            {"op": "set_notify", "id": "footstep_l", "notify": {"id": "footstep_left"}},
            {"op": "add_notify", "notify": {"id": "scuff", "name": "Scuff", "time": 1.0}},
        ]),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    // Answered after the save: the palette already lists the new events.
    let palette = s.get("/api/palette").body;
    let text = String::from_utf8_lossy(&palette);
    assert!(
        text.contains("6f445aa3-c53f-4364-8e31-6cfd2d513bbd.scuff"),
        "palette"
    );
    assert!(text.contains("6f445aa3-c53f-4364-8e31-6cfd2d513bbd.footstep_left"));
    assert!(!text.contains("6f445aa3-c53f-4364-8e31-6cfd2d513bbd.footstep_l\""));
    let guard = |s: &Studio| s.get("/api/graph?path=demo%2Fguard.bpg").json();
    assert!(wait_until(10, || guard(&s)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["node"] == "left")));
    let g = guard(&s);
    let d = g["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["node"] == "left")
        .unwrap()
        .clone();
    assert_eq!(d["severity"], "error");
    let all = d.to_string();
    assert!(
        all.contains("unknown event `animseq::6f445aa3-c53f-4364-8e31-6cfd2d513bbd.footstep_l`"),
        "{all}"
    );
    assert!(
        all.contains("did you mean `animseq::6f445aa3-c53f-4364-8e31-6cfd2d513bbd.footstep_"),
        "{all}"
    );
    let list = s.get("/api/graphs").json();
    let entry = list["graphs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["path"] == "demo/guard.bpg")
        .unwrap()
        .clone();
    assert!(entry["errors"].as_u64().unwrap() >= 1);
}

#[test]
fn hostile_edits_are_refused_naming_the_edit_and_nothing_is_written() {
    let s = start();
    let path = assets(&s).join(WALK);
    let before = std::fs::read(&path).unwrap();
    let base = clip(&s, WALK)["version"].as_str().unwrap().to_string();
    let ok = json!({"op": "set_notify", "id": "footstep_l", "notify": {"name": "L"}});
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"op": "add_notify", "notify": {"id": "x", "time": 1.3}}),
            "outside the clip",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"time": -0.1}}),
            "outside the clip",
        ),
        (
            json!({"op": "add_window", "window": {"id": "w", "begin": 0.5, "end": 0.5}}),
            "not before end",
        ),
        (
            json!({"op": "add_window", "window": {"id": "w", "begin": 0.8, "end": 0.2}}),
            "not before end",
        ),
        (
            json!({"op": "add_notify", "notify": {"id": "footstep_r", "time": 0.1}}),
            "already used",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"id": "footstep_r"}}),
            "already used",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"time": "soon"}}),
            "must be a number",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"fields": [{"name": "n", "type": "int", "value": 1.5}]}}),
            "not a int",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"fields": [{"name": "2n", "type": "int", "value": 1}]}}),
            "not an identifier",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"chance": 2}}),
            "outside [0, 1]",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"target": 3}}),
            "`target` must be",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"id": "bad id"}}),
            "not a valid ID",
        ),
        (
            json!({"op": "set_notify", "id": "footstep_l", "notify": {"begin": 0.1}}),
            "no field `begin`",
        ),
        (
            json!({"op": "set_notify", "id": "foostep_l", "notify": {"time": 0.1}}),
            "did you mean `footstep_l`",
        ),
        (
            json!({"op": "remove_window", "id": "footstep_l"}),
            "no window",
        ),
        (json!({"op": "explode"}), "unknown op"),
        (
            json!({"op": "add_notify", "notify": {"time": 0.1}}),
            "needs `id` and `time`",
        ),
    ];
    for (bad, why) in cases {
        // The bad edit second: the whole batch is refused, the good first edit included.
        let r = put(&s, WALK, &base, json!([ok.clone(), bad.clone()]));
        assert_eq!(r.status, 400, "{bad}: {}", String::from_utf8_lossy(&r.body));
        let v = r.json();
        assert_eq!(v["edit"], 1, "{bad}");
        let msg = v["error"].as_str().unwrap();
        assert!(msg.contains(why), "{bad}: {msg}");
        assert!(msg.starts_with("edit 1 ("), "{msg}");
        assert_eq!(std::fs::read(&path).unwrap(), before, "{bad}");
    }
    // Bodies that are not edit batches.
    for body in [
        json!({"edits": []}),
        json!({"base": base, "edits": {}}),
        json!({"base": base}),
    ] {
        let r = s.send("PUT", &format!("/api/clip?path={WALK}"), &body);
        assert_eq!(r.status, 400, "{body}");
    }
    // A huge batch.
    let many: Vec<Value> = (0..10_001).map(|_| ok.clone()).collect();
    let r = put(&s, WALK, &base, Value::Array(many));
    assert_eq!(r.status, 413);
    // Paths out of the assets folder, or not clips.
    for p in [
        "../graphs/demo/hero.bpg",
        "..%2Fescape.animseq",
        "%2Fetc%2Fx.animseq",
        "hero.skel",
    ] {
        let r = put(&s, p, &base, json!([ok.clone()]));
        assert_eq!(r.status, 400, "{p}");
        assert_eq!(s.get(&format!("/api/clip?path={p}")).status, 400, "{p}");
    }
    // Without the token nothing is written either.
    let r = s.request(
        "PUT",
        &format!("/api/clip?path={WALK}"),
        &[("Content-Type", "application/json")],
        json!({"base": base, "edits": [ok]}).to_string().as_bytes(),
    );
    assert_eq!(r.status, 403);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_clip_that_does_not_load_is_shown_and_never_rewritten() {
    let s = start();
    let path = assets(&s).join("broken.animseq");
    std::fs::write(
        &path,
        "AnimSeq(format: 4, id: \"b\", name: \"B\", duration: -1.0, tracks: [])\n",
    )
    .unwrap();
    let v = clip(&s, "broken.animseq");
    assert!(v["clip"].is_null());
    assert!(!v["diagnostics"].as_array().unwrap().is_empty());
    let base = v["version"].as_str().unwrap();
    let r = put(&s, "broken.animseq", base, json!([]));
    assert_eq!(r.status, 422);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .contains("does not load")
    );
    assert_eq!(s.get("/api/pose?path=broken.animseq&t=0").status, 422);
    let listed = s.get("/api/clips").json();
    let b = listed["clips"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "broken.animseq")
        .unwrap()
        .clone();
    assert!(b["errors"].as_u64().unwrap() >= 1);
}

#[test]
fn state_machines_are_listed_and_drawn() {
    let s = start();
    let v = s.get("/api/machines").json();
    assert_eq!(v["machines"], json!(["hero.animsm", "knight.animsm"]));
    let r = s.get("/api/machine.svg?path=hero.animsm");
    assert_eq!(r.status, 200);
    assert!(String::from_utf8_lossy(&r.body).starts_with("<svg"));
    assert_eq!(s.get("/api/machine.svg?path=..%2Fx.animsm").status, 400);
    let r = s.get("/api/model?path=models%2FFox.glb");
    assert_eq!(r.status, 200);
    assert_eq!(&r.body[..4], b"glTF");
}

// ---- the text editing itself (library level) ----

const COMMENTED: &str = include_str!("fixtures/clips/commented.animseq");

fn edit(text: &str, edits: &[ClipEdit]) -> Result<String, EditError> {
    apply_edits(&SourceFile::new("c.animseq", text), edits).map(|e| e.text)
}

fn set_time(id: &str, t: f64) -> ClipEdit {
    ClipEdit::SetNotify {
        id: id.into(),
        patch: MarkerPatch {
            time: Some(t),
            ..MarkerPatch::default()
        },
    }
}

#[test]
fn comments_are_kept_and_removed_items_take_only_their_own_line() {
    let out = edit(
        COMMENTED,
        &[ClipEdit::RemoveNotify {
            id: "step_l".into(),
        }],
    )
    .unwrap();
    let want = COMMENTED.replace(
        "        (id: \"step_l\", name: \"Step L\", time: 0.5, fields: [(\"surface\", String(\"grass\"))]), // trailing\n",
        "",
    );
    assert_eq!(out, want);
    let out = edit(COMMENTED, &[set_time("step_r", 1.25)]).unwrap();
    assert_eq!(out, COMMENTED.replace("time: 1.5)", "time: 1.25)"));
    // `set_*` keeps the item's trailing comment; a default value replaces a written one.
    let patch = MarkerPatch {
        time: Some(0.25),
        fields: Some(Vec::new()),
        ..MarkerPatch::default()
    };
    let out = edit(
        COMMENTED,
        &[ClipEdit::SetNotify {
            id: "step_l".into(),
            patch,
        }],
    )
    .unwrap();
    assert_eq!(
        out,
        COMMENTED.replace(
            "time: 0.5, fields: [(\"surface\", String(\"grass\"))]), // trailing",
            "time: 0.25, fields: []), // trailing"
        )
    );
    let patch = MarkerPatch {
        target: Some(Target::Owner),
        chance: Some(1.0),
        weight_threshold: Some(0.0),
        ..MarkerPatch::default()
    };
    let out = edit(
        COMMENTED,
        &[ClipEdit::SetNotify {
            id: "land".into(),
            patch,
        }],
    )
    .unwrap();
    assert_eq!(
        out,
        COMMENTED.replace(
            "target: Variable(\"rider\"), chance: 0.5",
            "target: Owner, chance: 1.0"
        )
    );
    let add = ClipEdit::AddWindow(MarkerPatch {
        id: Some("parry".into()),
        begin: Some(1.0),
        end: Some(1.5),
        target: Some(Target::Variable("foe".into())),
        ..MarkerPatch::default()
    });
    let out = edit(COMMENTED, &[add]).unwrap();
    assert_eq!(
        out,
        COMMENTED.replace(
            "begin: 0.2, end: 0.6),\n",
            "begin: 0.2, end: 0.6),\n        (id: \"parry\", name: \"parry\", begin: 1.0, end: 1.5, target: Variable(\"foe\")),\n"
        )
    );
}

#[test]
fn a_notify_added_to_a_clip_without_any_raises_its_format() {
    let text = "AnimSeq(\n    id: \"bare\",\n    name: \"Bare\",\n    duration: 1.0,\n    tracks: [],\n)\n";
    let add = ClipEdit::AddNotify(MarkerPatch {
        id: Some("tick".into()),
        time: Some(0.5),
        ..MarkerPatch::default()
    });
    let out = edit(text, &[add]).unwrap();
    assert_eq!(
        out,
        "AnimSeq(\n    format: 2,\n    id: \"bare\",\n    name: \"Bare\",\n    duration: 1.0,\n    tracks: [],\n    notifies: [\n        (id: \"tick\", name: \"tick\", time: 0.5),\n    ],\n)\n"
    );
    let win = ClipEdit::AddWindow(MarkerPatch {
        id: Some("w".into()),
        begin: Some(0.0),
        end: Some(1.0),
        ..MarkerPatch::default()
    });
    let out = edit(&out, &[win]).unwrap();
    assert!(out.starts_with("AnimSeq(\n    format: 4,\n"), "{out}");
    assert!(out.ends_with("    notifies: [\n        (id: \"tick\", name: \"tick\", time: 0.5),\n    ],\n    windows: [\n        (id: \"w\", name: \"w\", begin: 0.0, end: 1.0),\n    ],\n)\n"), "{out}");
}

/// A small deterministic generator (no dependency): xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn time(&mut self, d: f64) -> f64 {
        (self.below(1000) as f64 / 1000.0 * d * 100.0).round() / 100.0
    }
}

/// One random valid edit of `seq` (its markers as they stand).
fn random_edit(r: &mut Rng, seq: &animseq::AnimSeq, n: &mut usize) -> ClipEdit {
    let d = seq.duration;
    let ids: Vec<&str> = seq.notifies.iter().map(|x| x.id.as_str()).collect();
    let wids: Vec<&str> = seq.windows.iter().map(|x| x.id.as_str()).collect();
    *n += 1;
    let fresh = format!("gen_{n}");
    match r.below(7) {
        0 | 1 if !ids.is_empty() => {
            let id = ids[r.below(ids.len())].to_string();
            let mut patch = MarkerPatch::default();
            match r.below(5) {
                0 => patch.time = Some(r.time(d)),
                1 => patch.name = Some(format!("Name \"{n}\" // not a comment")),
                2 => patch.chance = Some(0.25),
                3 => patch.fields = Some(vec![("k".into(), animseq::FieldValue::Int(*n as i64))]),
                _ => patch.target = Some(Target::Owner),
            }
            ClipEdit::SetNotify { id, patch }
        }
        2 if ids.len() > 1 => ClipEdit::RemoveNotify {
            id: ids[r.below(ids.len())].to_string(),
        },
        3 if !wids.is_empty() => {
            let id = wids[r.below(wids.len())].to_string();
            let b = r.time(d / 2.0);
            ClipEdit::SetWindow {
                id,
                patch: MarkerPatch {
                    begin: Some(b),
                    end: Some(b + d / 4.0),
                    ..MarkerPatch::default()
                },
            }
        }
        4 if !wids.is_empty() => ClipEdit::RemoveWindow {
            id: wids[r.below(wids.len())].to_string(),
        },
        5 => {
            let b = r.time(d / 2.0);
            ClipEdit::AddWindow(MarkerPatch {
                id: Some(fresh),
                begin: Some(b),
                end: Some(b + 0.1),
                weight_threshold: Some(0.5),
                ..MarkerPatch::default()
            })
        }
        _ => ClipEdit::AddNotify(MarkerPatch {
            id: Some(fresh),
            time: Some(r.time(d)),
            name: Some(format!("N{n}")),
            ..MarkerPatch::default()
        }),
    }
}

/// Random valid batches on the commented clip: the result re-reads as exactly the edited
/// sequence (`apply_edits` checks that), every part before the notifies (tracks included) and
/// every comment line stays byte for byte, and the curves after them too.
#[test]
fn random_valid_edits_are_lossless() {
    // The commented clip, and the same with root motion after the curves.
    let moving = COMMENTED.replace(
        "    ],\n)\n",
        "    ],\n    root_motion: Some((bone: \"hips\", translation: (x: true, y: false, z: true), yaw: true)),\n)\n",
    );
    assert_ne!(moving, COMMENTED);
    for start in [COMMENTED, moving.as_str()] {
        random_edits_on(start);
    }
}

/// An edit whose answer is checked against loading its text whole: the read back that skips
/// the keys (`animseq::edit::readback`) must answer exactly what `load` does.
fn edit_loaded(text: &str, edits: &[ClipEdit]) -> Result<String, EditError> {
    let e = apply_edits(&SourceFile::new("c.animseq", text), edits)?;
    let whole = animseq::load(&SourceFile::new("c.animseq", e.text.as_str()));
    let mine = e.loaded();
    assert_eq!(whole.seq, mine.seq);
    assert_eq!(whole.format, mine.format);
    assert_eq!(whole.spans, mine.spans, "{}", e.text);
    assert_eq!(whole.diagnostics, mine.diagnostics);
    Ok(e.text)
}

fn random_edits_on(start: &str) {
    let comments: Vec<&str> = COMMENTED
        .lines()
        .filter(|l| l.trim_start().starts_with("//"))
        .collect();
    let head = &start[..start.find("    notifies:").unwrap()];
    let tail = &start[start.find("    curves:").unwrap()..];
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut n = 0;
    for round in 0..200 {
        let mut text = start.to_string();
        for _ in 0..1 + r.below(4) {
            let seq = animseq::load(&SourceFile::new("c", text.as_str()))
                .seq
                .unwrap();
            let batch: Vec<ClipEdit> = {
                // Batches are validated edit by edit against the sequence as it stands; build
                // each on a scratch copy so the batch stays valid.
                let mut out = Vec::new();
                let mut cur = text.clone();
                for _ in 0..1 + r.below(3) {
                    let s = animseq::load(&SourceFile::new("c", cur.as_str()))
                        .seq
                        .unwrap();
                    let e = random_edit(&mut r, &s, &mut n);
                    cur = edit(&cur, std::slice::from_ref(&e))
                        .unwrap_or_else(|e| panic!("{round}: {e}"));
                    out.push(e);
                }
                out
            };
            let _ = seq;
            let single =
                edit_loaded(&text, &batch).unwrap_or_else(|e| panic!("{round}: {e}: {batch:?}"));
            text = single;
            assert!(text.starts_with(head), "{round}\n{text}");
            assert!(text.ends_with(tail), "{round}\n{text}");
            for c in &comments {
                if !c.contains("the left foot") {
                    assert!(text.contains(c), "{round}: lost {c}\n{text}");
                }
            }
        }
    }
}

#[test]
fn a_batch_equals_its_edits_one_by_one() {
    let a = vec![
        set_time("step_l", 0.75),
        ClipEdit::RemoveNotify { id: "land".into() },
        ClipEdit::AddNotify(MarkerPatch {
            id: Some("land".into()),
            time: Some(1.0),
            ..MarkerPatch::default()
        }),
        set_time("land", 1.1),
    ];
    let batch = edit(COMMENTED, &a).unwrap();
    let mut one = COMMENTED.to_string();
    for e in &a {
        one = edit(&one, std::slice::from_ref(e)).unwrap();
    }
    let load = |t: &str| animseq::load(&SourceFile::new("c", t)).seq.unwrap();
    assert_eq!(load(&batch), load(&one));
}
