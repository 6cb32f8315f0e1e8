//! Shared by `tests/bytecode.rs` and `fuzz/fuzz_targets/verify.rs`: arbitrary bytes → decode →
//! verify → disassemble → run every handler (and its continuations) under a small budget with a
//! no-op host. Nothing may panic; decoding is strict, so a module that decodes re-encodes to the
//! same bytes.

use sinew::bytecode::{Const, Module, disasm, verify};
use sinew::vm::{InstanceState, NullHost, Outcome, Vm};

/// Runs the whole pipeline on `bytes`; panics only on a broken invariant.
pub fn exercise(bytes: &[u8]) {
    let Ok(m) = Module::decode(bytes) else { return };
    assert_eq!(
        m.encode(),
        bytes,
        "decoding is strict, so re-encoding is exact"
    );
    let Ok(vm) = verify(m) else { return };
    let text = disasm(&vm);
    assert!(
        !text
            .chars()
            .any(|c| c != '\n' && sinew::escape::needs_escape(c)),
        "a raw control character in disasm output"
    );
    let mut machine = Vm::new();
    let mut st = InstanceState::new(&vm, 3);
    for (hi, h) in vm.module().handlers.iter().enumerate() {
        let payload: Vec<_> = h
            .params
            .iter()
            .map(|t| Const::default_of(*t).to_value(Some(3)))
            .collect();
        let mut o = machine.run_handler(&vm, &mut st, hi, &payload, &mut NullHost, 10_000);
        for _ in 0..4 {
            match o {
                Outcome::Yielded { continuation, .. } => {
                    o = machine.resume(&vm, &mut st, continuation, &mut NullHost, 10_000)
                }
                _ => break,
            }
        }
    }
}
