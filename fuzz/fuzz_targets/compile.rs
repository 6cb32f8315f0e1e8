//! Fuzz target: arbitrary UTF-8 → `compile::compile` against a small in-memory catalog. A
//! module comes out iff there is no error diagnostic; every module runs each handler once (and
//! its continuations) under a small budget on a no-op host. Nothing may panic, hang or overflow
//! the stack; the diagnostics render (human and JSON) without a raw control character.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew::bytecode::Const;
use sinew::compile::{self, EventCatalog, EventInfo};
use sinew::diag::SourceFile;
use sinew::types::Type;
use sinew::vm::{InstanceState, NullHost, Outcome, Vm};

/// Two published notifies (one with typed fields) and one quarantined identity.
struct Catalog;

impl EventCatalog for Catalog {
    fn event(&self, identity: &str) -> EventInfo {
        match identity {
            "animseq::run.footstep_l" => EventInfo::Published {
                fields: vec![
                    ("surface".into(), Type::Str),
                    ("volume".into(), Type::Float),
                    ("count".into(), Type::Int),
                    ("hard".into(), Type::Bool),
                    ("push".into(), Type::Vec3),
                ],
                window: false,
            },
            "animseq::run.land" => EventInfo::Published {
                fields: Vec::new(),
                window: false,
            },
            "animseq::attack.hit" => EventInfo::Published {
                fields: vec![("damage".into(), Type::Float)],
                window: true,
            },
            "animseq::dup.hit" => EventInfo::Quarantined {
                files: vec!["a.animseq".into(), "b.animseq".into()],
            },
            _ => EventInfo::Unknown,
        }
    }
    fn published(&self) -> Vec<String> {
        vec![
            "animseq::attack.hit".into(),
            "animseq::run.footstep_l".into(),
            "animseq::run.land".into(),
        ]
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = SourceFile::new("fuzz.bpg", text);
    let c = compile::compile(&src, &Catalog);
    let human = sinew::diag::render::human(c.diagnostics(), false);
    assert!(!human.chars().any(|c| c != '\n' && sinew::escape::needs_escape(c)), "{human:?}");
    let _ = sinew::diag::render::to_json(c.diagnostics());
    let errors = c.diagnostics().iter().any(|d| d.is_error());
    assert_eq!(c.module.is_some(), !errors, "module iff no errors");
    let Some(m) = &c.module else { return };
    let mut vm = Vm::new();
    let mut st = InstanceState::new(m, 1);
    for (hi, h) in m.module().handlers.iter().enumerate() {
        let payload: Vec<_> = h
            .params
            .iter()
            .map(|t| Const::default_of(*t).to_value(Some(1)))
            .collect();
        let mut o = vm.run_handler(m, &mut st, hi, &payload, &mut NullHost, 10_000);
        for _ in 0..4 {
            match o {
                Outcome::Yielded { continuation, .. } => {
                    o = vm.resume(m, &mut st, continuation, &mut NullHost, 10_000);
                }
                _ => break,
            }
        }
    }
});
