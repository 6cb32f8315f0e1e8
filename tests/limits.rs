//! Walks `docs/limits.md`: every limit documented there has a case here that reaches it and
//! shows what the page says a user sees (and every case here is documented there).
//!
//! A case is data: the limit's name as in the page, how to reach it, and the texts that must
//! appear both in the page's row and in what Sinew printed. To add a limit, add a row to the page
//! and a [`Case`] to [`cases`].

#[path = "support/alloc.rs"]
mod alloc;

use sinew::bytecode::{self, Const, Instr, Module, ModuleBuilder};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// How a case reaches its limit.
enum Reach {
    /// Writes its files into an empty folder (which has an empty `assets/`), then runs `sinew`
    /// there with `args`; the expected exit status and texts (stdout and stderr together).
    Cli {
        files: fn(&Path),
        args: &'static [&'static str],
        status: i32,
    },
    /// In-process: returns the text the expected texts must appear in (a case whose limit has
    /// no message asserts its bound itself and returns the page's wording).
    Lib(fn() -> String),
}

struct Case {
    /// The limit's name, as in the first column of `docs/limits.md`.
    limit: &'static str,
    reach: Reach,
    /// Texts that must appear in the page's row and in the output.
    says: &'static [&'static str],
}

fn write(dir: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Runs `sinew` in `dir`; returns (status, stdout and stderr).
fn sinew(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sinew");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// An `.animseq` with one notify per name.
fn animseq(id: &str, names: &[&str]) -> String {
    let n: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, name)| format!("(id: \"n{i}\", name: \"{name}\", time: 0.5)"))
        .collect();
    format!(
        "AnimSeq(format: 2, id: \"{id}\", name: \"S\", duration: 1.0, tracks: [], notifies: [{}])\n",
        n.join(", ")
    )
}

/// A graph `g/a.bpg`: header, then `body`.
fn graph(dir: &Path, body: &str) {
    write(dir, "g/a.bpg", format!("graph a\n{body}"));
}

/// A small valid module, for edits that break one rule.
fn module() -> Module {
    let mut mb = ModuleBuilder::new("m");
    mb.constant(Const::Int(1));
    let mut h = mb.handler("tick", &[]);
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    mb.finish()
}

fn module_file(dir: &Path, m: &Module) {
    write(dir, "m.sbc", m.encode());
}

/// The storm: a handler sending its event to itself twice.
fn storm(dir: &Path) {
    write(
        dir,
        "graphs/storm.bpg",
        "graph storm\nnode on = event custom::storm\nnode a = event.send custom::storm\n\
         node b = event.send custom::storm\non.then -> a.exec\na.then -> b.exec\n",
    );
    write(
        dir,
        "s.scene.ron",
        "Scene(entities: [(name: \"hero\", graphs: [\"graphs/storm.bpg\"])],\n\
         actions: [(at: 0.0, entity: \"hero\", action: Send(\"hero\", \"custom::storm\"))])\n",
    );
}

fn one_scene(dir: &Path, entities: &str, actions: &str) {
    write(
        dir,
        "s.scene.ron",
        format!("Scene(entities: [{entities}], actions: [{actions}])\n"),
    );
}

/// Compiles `text` (no catalog); the errors, rendered, after checking that there is no module,
/// no internal error, and that the first error of `code` is on line `line` (0: on a `node`
/// declaration).
fn compile_errors(text: &str, code: &str, line: usize) -> String {
    let src = sinew::diag::SourceFile::new("big.bpg", text);
    let c = sinew::compile::compile(&src, &sinew::catalog::Catalog::default());
    assert!(c.module.is_none());
    let errors: Vec<_> = c
        .diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    assert!(errors.iter().all(|d| d.code != "E0399"), "{errors:?}");
    let first = errors.iter().find(|d| d.code == code).expect(code);
    if line == 0 {
        let at = text
            .lines()
            .nth(first.start.line as usize - 1)
            .unwrap_or("");
        assert!(at.starts_with("node "), "{first:?}");
    } else {
        assert_eq!(first.start.line as usize, line, "{first:?}");
    }
    sinew::diag::render::human(&errors, false)
}

/// Runs a module's `tick` handler once on a null host; the outcome as text.
fn run_tick(m: Module) -> String {
    use sinew::vm::{InstanceState, NullHost, Vm};
    let m = bytecode::verify(m).expect("valid module");
    let mut st = InstanceState::new(&m, 0);
    let h = m.handler_index("tick").unwrap();
    let o = Vm::new().run_handler(&m, &mut st, h, &[], &mut NullHost, bytecode::DEFAULT_BUDGET);
    format!("{o:?}")
}

fn trace_world(limit: usize) -> bevy_ecs::world::World {
    let mut w = bevy_ecs::world::World::new();
    w.insert_resource(sinew::runtime::Trace {
        limit,
        ..Default::default()
    });
    w
}

fn drained(w: &mut bevy_ecs::world::World) -> String {
    let records = w.resource_mut::<sinew::runtime::Trace>().drain();
    records.iter().map(|r| format!("{:?}\n", r.kind)).collect()
}

fn log(w: &mut bevy_ecs::world::World) {
    sinew::runtime::trace::record(
        w,
        sinew::runtime::TraceKind::Log {
            entity: bevy_ecs::entity::Entity::PLACEHOLDER,
            graph: "g".into(),
            message: "m".into(),
        },
    );
}

/// Every documented limit and how to reach it.
fn cases() -> Vec<Case> {
    use Reach::{Cli, Lib};
    vec![
        // ------------------------------------------------------------------ reading files
        Case {
            limit: "catalog.file_size",
            reach: Cli {
                files: |d| {
                    // Sparse: costs no disk, and is never read.
                    let f = std::fs::File::create(d.join("assets/huge.animseq")).unwrap();
                    f.set_len(257 * 1024 * 1024).unwrap();
                },
                args: &["catalog"],
                status: 1,
            },
            says: &["E0003", "the catalog loads files up to 268435456 bytes"],
        },
        Case {
            limit: "text.ron_depth",
            reach: Cli {
                files: |d| {
                    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
                    write(
                        d,
                        "assets/deep.animseq",
                        format!(
                            "AnimSeq(format: 2, id: \"d\", name: \"D\", duration: 1.0, tracks: {deep})"
                        ),
                    );
                },
                args: &["catalog"],
                status: 1,
            },
            says: &["nesting deeper than 128 levels"],
        },
        Case {
            limit: "walk.depth",
            reach: Cli {
                files: |d| write(d, &format!("g/{}x.bpg", "d/".repeat(257)), "graph x\n"),
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0005", "folder nested deeper than 256 levels; not walked"],
        },
        Case {
            limit: "cli.regular_files",
            reach: Cli {
                files: |d| {
                    let ok = Command::new("mkfifo").arg(d.join("pipe.bpg")).status();
                    assert!(ok.is_ok_and(|s| s.success()), "mkfifo");
                },
                args: &["check", "pipe.bpg"],
                status: 2,
            },
            says: &["is not a regular file or a folder"],
        },
        Case {
            limit: "input.size",
            reach: Cli {
                files: |d| {
                    let f = std::fs::File::create(d.join("big.bpg")).unwrap();
                    f.set_len(17 * 1024 * 1024).unwrap();
                    one_scene(d, "(name: \"e\", graphs: [\"big.bpg\"])", "");
                },
                args: &["check", "s.scene.ron"],
                status: 1,
            },
            says: &["E0561", "graph files are limited to 16 MiB"],
        },
        Case {
            limit: "input.command_line",
            reach: Cli {
                files: |d| {
                    let f = std::fs::File::create(d.join("m.sbc")).unwrap();
                    f.set_len(65 * 1024 * 1024).unwrap();
                },
                args: &["disasm", "m.sbc"],
                status: 2,
            },
            says: &["module files are limited to 64 MiB"],
        },
        Case {
            limit: "input.not_a_file",
            reach: Cli {
                files: |d| {
                    let ok = Command::new("mkfifo").arg(d.join("pipe.bpg")).status();
                    assert!(ok.is_ok_and(|s| s.success()), "mkfifo");
                    one_scene(d, "(name: \"e\", graphs: [\"pipe.bpg\"])", "");
                },
                args: &["check", "s.scene.ron"],
                status: 1,
            },
            says: &["E0561", "not a regular file (a FIFO)"],
        },
        Case {
            limit: "scene.paths",
            reach: Cli {
                files: |d| one_scene(d, "(name: \"e\", graphs: [\"/etc/hostname\"])", ""),
                args: &["check", "s.scene.ron"],
                status: 1,
            },
            says: &["E0564", "leads outside the project"],
        },
        // ------------------------------------------------------------------ graphs
        Case {
            limit: "graph.syntax_errors",
            reach: Cli {
                files: |d| {
                    let body: String = (0..110).map(|i| format!("node n{i} int.add\n")).collect();
                    graph(d, &body);
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["more syntax errors not shown (stopped listing after 100)"],
        },
        Case {
            limit: "graph.box_position",
            reach: Cli {
                files: |d| graph(d, "box \"T\" at (2000000000, 0) size (10, 10)\n"),
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0415", "is out of bounds"],
        },
        Case {
            limit: "graph.box_size",
            reach: Cli {
                files: |d| graph(d, "box \"T\" at (0, 0) size (0, 10)\n"),
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0415", "comment box width 0 is out of bounds"],
        },
        Case {
            limit: "graph.reroute_joined",
            reach: Cli {
                // 1,001 wires into one reroute and 1,000 out of it: joining them would make
                // 1,001,000 wires.
                files: |d| {
                    let mut body = String::from("node r = reroute\n");
                    for i in 0..1001 {
                        body.push_str(&format!("node s{i} = event tick\ns{i}.then -> r.in\n"));
                    }
                    for i in 0..1000 {
                        body.push_str(&format!("node l{i} = debug.log\nr.out -> l{i}.exec\n"));
                    }
                    graph(d, &body);
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0340", "would make more than 1000000 wires"],
        },
        Case {
            limit: "graph.event_id",
            reach: Cli {
                files: |d| {
                    graph(
                        d,
                        &format!("node e = event animseq::s.{}\n", "x".repeat(65)),
                    )
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0409", "the limit is 64"],
        },
        Case {
            limit: "graph.sequence_outputs",
            reach: Cli {
                files: |d| graph(d, "node s = flow.sequence { count = 17 }\n"),
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0316", "`count` must be between 1 and 16"],
        },
        Case {
            limit: "graph.payload_fields",
            reach: Cli {
                files: |d| {
                    let fields: Vec<String> = (0..64).map(|i| format!("f{i}: int")).collect();
                    graph(
                        d,
                        &format!("event custom::big {{ {} }}\n", fields.join(", ")),
                    );
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0325", "a payload has at most 63"],
        },
        Case {
            limit: "expr.nesting",
            reach: Cli {
                files: |d| {
                    let e = format!("{}x{}", "(".repeat(70), ")".repeat(70));
                    graph(d, &format!("node x = expr \"{e}\"\n"));
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0414", "the limit is 64 levels of nesting"],
        },
        Case {
            limit: "expr.height",
            reach: Cli {
                files: |d| {
                    let e = vec!["1"; 300].join("+");
                    graph(d, &format!("node x = expr \"{e}\"\n"));
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0414", "the limit is a tree height of 256"],
        },
        Case {
            limit: "compile.exec_nesting",
            reach: Cli {
                files: |d| {
                    let n = 1026;
                    let mut t = String::from("node start = event begin_play\n");
                    for i in 0..n {
                        writeln!(t, "node s{i} = flow.sequence").unwrap();
                    }
                    t.push_str("start.then -> s0.exec\n");
                    for i in 1..n {
                        writeln!(t, "s{}.then_0 -> s{i}.exec", i - 1).unwrap();
                    }
                    graph(d, &t);
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["E0321", "exec nesting deeper than 1024 levels"],
        },
        Case {
            limit: "compile.format_vars",
            reach: Lib(|| {
                let mut t = String::from("graph big\n");
                for i in 0..65_537 {
                    writeln!(t, "var v{i}: int = 0").unwrap();
                }
                // The 65,537th variable is on line 65,538.
                compile_errors(&t, "E0322", 65_538)
            }),
            says: &["E0322", "a graph holds at most 65536 variables"],
        },
        Case {
            limit: "compile.format_code",
            reach: Lib(|| {
                // 1,000 pure adds of a literal (one `int.add.k` each), read by each of 1,100
                // var.set nodes: 1.1 M instructions.
                let (k, m) = (1_000, 1_100);
                let mut t = String::from("graph big\nvar x: int = 0\nnode t = event tick\n");
                for i in 0..k {
                    writeln!(t, "node p{i} = int.add {{ b = 1 }}").unwrap();
                }
                for i in 1..k {
                    writeln!(t, "p{}.out -> p{i}.a", i - 1).unwrap();
                }
                for j in 0..m {
                    writeln!(t, "node s{j} = var.set x\np{}.out -> s{j}.value", k - 1).unwrap();
                }
                t.push_str("t.then -> s0.exec\n");
                for j in 1..m {
                    writeln!(t, "s{}.then -> s{j}.exec", j - 1).unwrap();
                }
                // At the node whose code is past 2^20 (one of the chain's, evaluated for the
                // 1,048th set).
                let text = compile_errors(&t, "E0322", 0);
                assert!(text.contains("instructions"), "{text}");
                text
            }),
            says: &["E0322", "a module holds at most 1048576"],
        },
        Case {
            limit: "compile.format_registers",
            reach: Lib(|| {
                let mut t = String::from("graph big\nvar x: int = 0\nnode t = event tick\n");
                for i in 0..2_100 {
                    writeln!(
                        t,
                        "node f{i} = flow.for {{ first = 0, last = 1 }}\nnode s{i} = var.set x\n\
                         f{i}.index -> s{i}.value\nf{i}.body -> s{i}.exec"
                    )
                    .unwrap();
                }
                t.push_str("t.then -> f0.exec\n");
                for i in 1..2_100 {
                    writeln!(t, "f{}.completed -> f{i}.exec", i - 1).unwrap();
                }
                // At the handler's event node (line 3).
                compile_errors(&t, "E0322", 3)
            }),
            says: &["E0322", "a handler has at most 4096 of each type"],
        },
        Case {
            limit: "compile.instance_state",
            reach: Lib(|| {
                let mut t = String::from("graph big\n");
                for i in 0..50_000 {
                    writeln!(t, "var v{i}: int = 0").unwrap();
                }
                // 24 bytes each: the 43,691st variable (line 43,692) crosses 1 MiB.
                assert_eq!(std::mem::size_of::<sinew::bytecode::Value>(), 24);
                compile_errors(&t, "E0323", 43_692)
            }),
            says: &["E0323", "an instance holds at most 1048576 (1 MiB)"],
        },
        // ------------------------------------------------------------------ bytecode
        Case {
            limit: "bytecode.section_counts",
            reach: Cli {
                files: |d| {
                    let mut b = module().encode();
                    // magic+version, NAME section (tag, length, body), META, CONSTS tag+length
                    let name_len = u32::from_le_bytes(b[7..11].try_into().unwrap()) as usize;
                    let at = 6 + 5 + name_len + 5 + 8 + 5;
                    b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
                    write(d, "m.sbc", b);
                },
                args: &["disasm", "m.sbc"],
                status: 1,
            },
            says: &["E0060", "constants; a module holds at most 1048576"],
        },
        Case {
            limit: "bytecode.distinct_constants",
            reach: Cli {
                files: |d| {
                    let mut m = module();
                    m.consts = vec![Const::Bool(true), Const::Bool(true)];
                    module_file(d, &m);
                },
                args: &["disasm", "m.sbc"],
                status: 1,
            },
            says: &["E0061", "are equal (a module's constants are distinct)"],
        },
        Case {
            limit: "bytecode.registers",
            reach: Cli {
                files: |d| {
                    let mut m = module();
                    m.handlers[0].regs[0] = 4097;
                    module_file(d, &m);
                },
                args: &["disasm", "m.sbc"],
                status: 1,
            },
            says: &["E0061", "registers (max 4096)"],
        },
        Case {
            limit: "bytecode.strings",
            reach: Cli {
                files: |d| {
                    let mut m = module();
                    m.consts.push(Const::Str("s".repeat(65_537)));
                    module_file(d, &m);
                },
                args: &["disasm", "m.sbc"],
                status: 1,
            },
            says: &["E0061", "string too long"],
        },
        Case {
            limit: "bytecode.budget_metadata",
            reach: Cli {
                files: |d| {
                    let mut m = module();
                    m.budget = 0;
                    module_file(d, &m);
                },
                args: &["disasm", "m.sbc"],
                status: 1,
            },
            says: &["E0061", "outside 1..=100000000"],
        },
        Case {
            limit: "bytecode.definite_assignment",
            reach: Lib(|| {
                // One handler writes 4,096 int registers (64 bitset words), then `extra` more
                // loads: over 2^20 words of analysis it is zeroed before every run (never
                // refused, never different), under it not.
                let build = |extra: usize| {
                    let mut mb = ModuleBuilder::new("wide");
                    let out = mb.var::<bytecode::I>("out", Const::Int(-1));
                    let five = mb.const_int(5);
                    let mut h = mb.handler("tick", &[]);
                    let regs: Vec<_> = (0..4096).map(|_| h.reg::<bytecode::I>()).collect();
                    for &r in &regs {
                        h.emit(Instr::LdcI { dst: r, c: five });
                    }
                    for _ in 0..extra {
                        h.emit(Instr::LdcI {
                            dst: regs[0],
                            c: five,
                        });
                    }
                    h.emit(Instr::VarSetI {
                        var: out,
                        src: regs[4095],
                    });
                    h.emit(Instr::Ret {});
                    h.finish().unwrap();
                    let m = bytecode::verify(mb.finish()).expect("verifies at any size");
                    m.needs_reset(m.handler_index("tick").unwrap())
                };
                assert!(!build(0), "4,097 instructions × 64 words are analysed");
                assert!(
                    build(12_500),
                    "16,597 instructions × 64 words are over 2^20"
                );
                "no message".into()
            }),
            says: &["no message"],
        },
        Case {
            limit: "disasm.memory",
            reach: Lib(|| {
                let mut mb = ModuleBuilder::new("big");
                for i in 0..50_000 {
                    mb.constant(Const::Int(i));
                }
                let mut h = mb.handler("tick", &[]);
                h.emit(Instr::Ret {});
                h.finish().unwrap();
                let bytes = mb.finish().encode();
                let (vm, load) =
                    alloc::peak_of(|| bytecode::verify(Module::decode(&bytes).unwrap()).unwrap());
                let ((), write) = alloc::peak_of(|| {
                    let mut w = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
                    bytecode::disasm::disasm_to(&vm, &mut w).unwrap();
                });
                assert!(load <= 8 * bytes.len(), "{load} B for {} B", bytes.len());
                assert!(write <= 80 * 1024, "{write} B held while writing");
                "no message".into()
            }),
            says: &["no message"],
        },
        // ------------------------------------------------------------------ running
        Case {
            limit: "vm.budget",
            reach: Cli {
                files: |d| {
                    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenes");
                    for f in ["budget.scene.ron", "graphs/spin.bpg"] {
                        write(d, f, std::fs::read(root.join(f)).unwrap());
                    }
                },
                args: &["run", "budget.scene.ron", "--ticks", "1"],
                status: 0,
            },
            says: &["instruction budget of 100000 exhausted"],
        },
        Case {
            limit: "vm.call_depth",
            reach: Lib(|| {
                let mut mb = ModuleBuilder::new("deep");
                let mut h = mb.handler("tick", &[]);
                let top = h.label();
                h.bind(top);
                h.emit(Instr::Call {
                    target: top.target(),
                });
                h.emit(Instr::Ret {});
                h.finish().unwrap();
                run_tick(mb.finish())
            }),
            says: &["exec nesting deeper than 1024 calls"],
        },
        Case {
            limit: "vm.string_length",
            reach: Lib(|| {
                let mut mb = ModuleBuilder::new("long");
                let c = mb.const_str(&"x".repeat(40_000));
                let mut h = mb.handler("tick", &[]);
                let (a, b) = (h.reg(), h.reg());
                h.emit(Instr::LdcS { dst: a, c });
                h.emit(Instr::StrConcat { dst: b, a, b: a });
                h.emit(Instr::Ret {});
                h.finish().unwrap();
                run_tick(mb.finish())
            }),
            says: &["string longer than 65536 bytes"],
        },
        Case {
            limit: "runtime.flush_rounds",
            reach: Cli {
                files: |d| {
                    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenes");
                    for f in ["flush_rounds.scene.ron", "graphs/pingpong.bpg"] {
                        write(d, f, std::fs::read(root.join(f)).unwrap());
                    }
                },
                args: &["run", "flush_rounds.scene.ron", "--ticks", "1"],
                status: 0,
            },
            says: &["event flush stopped after 16 rounds"],
        },
        Case {
            limit: "runtime.flush_deliveries",
            reach: Cli {
                files: storm,
                args: &["run", "s.scene.ron", "--ticks", "2"],
                status: 0,
            },
            says: &["deliveries (the limit per update)"],
        },
        Case {
            limit: "runtime.queue",
            reach: Cli {
                // Each tick delivers 65 536 events and queues twice that: full after ~16 ticks.
                files: storm,
                args: &["run", "s.scene.ron", "--ticks", "18"],
                status: 0,
            },
            says: &["event(s) dropped: event queue full"],
        },
        Case {
            limit: "runtime.game_events",
            reach: Cli {
                // Each tick's handlers send 131 072 custom events: twice what the game keeps.
                files: storm,
                args: &["run", "s.scene.ron", "--ticks", "2"],
                status: 0,
            },
            says: &["game event(s) dropped: more than 65536 in one tick"],
        },
        Case {
            limit: "runtime.trace_records",
            reach: Lib(|| {
                let mut w = trace_world(2);
                for _ in 0..5 {
                    log(&mut w);
                }
                drained(&mut w)
            }),
            says: &["trace record(s) dropped: more than"],
        },
        Case {
            limit: "runtime.trace_reports",
            reach: Lib(|| {
                let mut w = trace_world(2);
                for _ in 0..5 {
                    log(&mut w);
                }
                sinew::runtime::trace::report(&mut w, "event flush stopped after 16 rounds");
                drained(&mut w)
            }),
            says: &["event flush stopped after"],
        },
        Case {
            limit: "scene.items",
            reach: Cli {
                files: |d| {
                    let a = vec!["(at: 0.0, entity: \"e\", action: Seek(0.0))"; 100_001].join(",");
                    one_scene(d, "(name: \"e\")", &a);
                },
                args: &["check", "s.scene.ron"],
                status: 1,
            },
            says: &["E0558", "at most 100000"],
        },
        Case {
            limit: "scene.vars",
            reach: Cli {
                files: |d| {
                    graph(d, "var x: int = 0\n");
                    let vars: Vec<String> =
                        (0..100_001).map(|i| format!("\"v{i}\": Int(1)")).collect();
                    let e = format!(
                        "(name: \"e\", graphs: [(\"g/a.bpg\", vars: {{{}}})])",
                        vars.join(",")
                    );
                    one_scene(d, &e, "");
                },
                args: &["check", "s.scene.ron"],
                status: 1,
            },
            says: &["E0558", "too many variables (100001; at most 100000)"],
        },
        Case {
            limit: "scene.speed",
            reach: Cli {
                files: |d| {
                    one_scene(
                        d,
                        "(name: \"e\")",
                        "(at: 0.0, entity: \"e\", action: SetSpeed(1e7))",
                    )
                },
                args: &["check", "s.scene.ron"],
                status: 1,
            },
            says: &["E0558", "speed must be within ±1000000"],
        },
        Case {
            limit: "anim.speed",
            reach: Cli {
                files: |d| {
                    graph(
                        d,
                        "node s = event begin_play\nnode f = anim.set_speed { speed = 1e9 }\n\
                         s.then -> f.exec\n",
                    );
                    one_scene(
                        d,
                        "(name: \"e\", animator: Some((clips: {})), graphs: [\"g/a.bpg\"])",
                        "",
                    )
                },
                args: &["run", "s.scene.ron", "--ticks", "3"],
                status: 0,
            },
            says: &["the speed must be finite and within ±1000000"],
        },
        Case {
            limit: "run.ticks",
            reach: Cli {
                files: |d| one_scene(d, "(name: \"e\")", ""),
                args: &["run", "s.scene.ron", "--ticks", "1000001"],
                status: 2,
            },
            says: &["--ticks must be at most 1000000"],
        },
        Case {
            limit: "run.dt",
            reach: Cli {
                files: |d| one_scene(d, "(name: \"e\")", ""),
                args: &["run", "s.scene.ron", "--dt", "3601"],
                status: 2,
            },
            says: &["--dt must be a finite number of seconds in (0, 3600]"],
        },
        // ------------------------------------------------------------------ animation assets
        Case {
            limit: "anim.bones",
            reach: Cli {
                files: |d| {
                    let bones: Vec<String> = (0..4097)
                        .map(|i| {
                            format!(
                                "(name: \"b{i}\", parent: None, translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))"
                            )
                        })
                        .collect();
                    write(
                        d,
                        "rig.skel",
                        format!("Skeleton(bones: [{}])", bones.join(",")),
                    );
                },
                args: &["check", "rig.skel"],
                status: 1,
            },
            says: &["E0509", "a skeleton needs 1 to 4096 bones"],
        },
        Case {
            limit: "anim.blend_depth",
            reach: Cli {
                files: |d| {
                    let mut tree = String::from("Clip(\"x\")");
                    for _ in 0..34 {
                        tree = format!("Lerp(a: {tree}, b: Clip(\"x\"), param: \"p\")");
                    }
                    write(
                        d,
                        "sm.animsm",
                        format!(
                            "StateMachine(entry: \"s\", states: [(name: \"s\", motion: Blend({tree}))])"
                        ),
                    );
                },
                args: &["check", "sm.animsm"],
                status: 1,
            },
            says: &["E0513", "blend tree nested deeper than 32"],
        },
        Case {
            limit: "anim.blend_entries",
            reach: Cli {
                files: |d| {
                    let entries: Vec<String> = (0..257)
                        .map(|i| format!("(clip: \"x\", threshold: {i}.0)"))
                        .collect();
                    write(
                        d,
                        "sm.animsm",
                        format!(
                            "StateMachine(entry: \"s\", states: [(name: \"s\", motion: Blend(Blend1D(param: \"p\", entries: [{}])))])",
                            entries.join(",")
                        ),
                    );
                },
                args: &["check", "sm.animsm"],
                status: 1,
            },
            says: &["E0512", "a blend needs 1 to 256 entries"],
        },
        Case {
            limit: "anim.states",
            reach: Cli {
                files: |d| {
                    let states: Vec<String> = (0..4097)
                        .map(|i| format!("(name: \"s{i}\", motion: Clip(\"x\"))"))
                        .collect();
                    write(
                        d,
                        "sm.animsm",
                        format!(
                            "StateMachine(entry: \"s0\", states: [{}])",
                            states.join(",")
                        ),
                    );
                },
                args: &["check", "sm.animsm"],
                status: 1,
            },
            says: &["E0522", "at most 4096 items"],
        },
        // ------------------------------------------------------------------ crossings
        Case {
            limit: "crossings.limit",
            reach: Cli {
                files: |d| write(d, "a.animseq", animseq("s", &["A"])),
                args: &[
                    "crossings",
                    "a.animseq",
                    "--from=0",
                    "--to=20000",
                    "--looping",
                ],
                status: 0,
            },
            says: &["(truncated at the limit)"],
        },
        Case {
            limit: "crossings.max_limit",
            reach: Cli {
                files: |d| write(d, "a.animseq", animseq("s", &["A"])),
                args: &["crossings", "a.animseq", "--seek", "--limit", "10000001"],
                status: 2,
            },
            says: &["--limit must be at most 10000000"],
        },
        Case {
            limit: "crossings.name",
            reach: Cli {
                files: |d| write(d, "a.animseq", animseq("s", &[&"N".repeat(300)])),
                args: &["crossings", "a.animseq", "--from=0", "--to=1"],
                status: 0,
            },
            says: &["…"],
        },
        Case {
            limit: "animseq.windows",
            reach: Cli {
                files: |d| {
                    let w =
                        vec!["(id: \"w\", name: \"W\", begin: 0.1, end: 0.2)"; 65_537].join(",");
                    write(
                        d,
                        "assets/w.animseq",
                        format!(
                            "AnimSeq(format: 4, id: \"s\", name: \"S\", duration: 1.0, windows: [{w}])"
                        ),
                    );
                },
                args: &["catalog"],
                status: 1,
            },
            says: &["E0132", "at most 65536 are allowed"],
        },
        // ------------------------------------------------------------------ reports
        Case {
            limit: "report.per_file",
            reach: Cli {
                files: |d| {
                    let body: String = (0..250)
                        .map(|i| format!("node n{i} = debug.log\n"))
                        .collect();
                    graph(d, &body);
                },
                args: &["check", "g"],
                status: 0,
            },
            says: &["N0001", "more diagnostics in this file"],
        },
        Case {
            limit: "report.choices",
            reach: Lib(|| {
                let entities: Vec<String> = (0..20).map(|i| format!("(name: \"e{i}\")")).collect();
                let text = format!(
                    "Scene(entities: [{}], actions: [(at: 0.0, entity: \"nobody\", action: Pause)])",
                    entities.join(", ")
                );
                let parsed = sinew::scene::parse_bytes("s.scene.ron", text.as_bytes());
                sinew::diag::render::human(&parsed.diagnostics, false)
            }),
            says: &["E0557", "and 4 more"],
        },
        Case {
            limit: "report.message",
            reach: Cli {
                files: |d| graph(d, &format!("node x = {}\n", "k".repeat(2000))),
                args: &["check", "g"],
                status: 1,
            },
            says: &["more chars)"],
        },
        Case {
            limit: "report.snippet",
            reach: Cli {
                files: |d| {
                    graph(
                        d,
                        &format!("node x = int.ad {{ {} }}\n", "b = 1, ".repeat(100)),
                    )
                },
                args: &["check", "g"],
                status: 1,
            },
            says: &["…"],
        },
        Case {
            limit: "report.claimants",
            reach: Cli {
                files: |d| {
                    for i in 0..11 {
                        write(
                            d,
                            &format!("assets/c{i:02}.animseq"),
                            animseq("same", &["A"]),
                        );
                    }
                },
                args: &["catalog"],
                status: 1,
            },
            says: &["and 5 more"],
        },
        Case {
            limit: "report.escapes",
            reach: Cli {
                files: |d| write(d, "assets/a.animseq", animseq("s", &["a\\u{1b}[2J\\nb"])),
                args: &["catalog"],
                status: 0,
            },
            says: &["\\u{1b}", "\\n"],
        },
        // ------------------------------------------------------------------ did-you-mean
        Case {
            limit: "suggest.length",
            reach: Lib(|| {
                let name = |n: usize| format!("{}a", "v".repeat(n - 1));
                let near = |n: usize| format!("{}b", "v".repeat(n - 1));
                let (n128, n129) = (name(128), name(129));
                let ok = sinew::suggest::closest(&near(128), [n128.as_str()]);
                let long = sinew::suggest::closest(&near(129), [n129.as_str()]);
                assert!(ok.is_some(), "128 characters are compared");
                assert_eq!(long, None);
                "no suggestion".into()
            }),
            says: &["no suggestion"],
        },
        Case {
            limit: "suggest.work",
            reach: Lib(|| {
                let len = sinew::suggest::MAX_LEN;
                let word = "ab".repeat(len / 2);
                let cand = format!("{}{}", "a".repeat(len / 2), "b".repeat(len / 2));
                let s = sinew::suggest::search(
                    &word,
                    std::iter::repeat_n(cand.as_str(), 50_000),
                    len / 3,
                );
                assert!(s.exhausted && s.work <= sinew::suggest::MAX_WORK, "{s:?}");
                "no message".into()
            }),
            says: &["no message"],
        },
        // ------------------------------------------------------------------ files written
        Case {
            limit: "fs.stale_temporaries",
            reach: Lib(|| {
                let dir = tempfile::tempdir().unwrap();
                let d = dir.path();
                write(d, "g/a.bpg", "graph a\nnode   x = debug.log\n");
                let stale = d.join("g/.a.bpg.0123456789abcdef0123456789abcdef.sinew.tmp");
                write(
                    d,
                    "g/.a.bpg.0123456789abcdef0123456789abcdef.sinew.tmp",
                    "half",
                );
                let old = std::time::SystemTime::now() - std::time::Duration::from_secs(11 * 60);
                let f = std::fs::File::options().write(true).open(&stale).unwrap();
                f.set_modified(old).unwrap();
                drop(f);
                let (code, out) = sinew(d, &["fmt", "g"]);
                assert_eq!(code, 0, "{out}");
                assert!(!stale.exists());
                "removed".into()
            }),
            says: &["removed"],
        },
    ]
}

/// The rows of `docs/limits.md`: limit name → the row's text.
fn documented() -> BTreeMap<String, String> {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/limits.md"))
            .expect("docs/limits.md");
    let mut rows = BTreeMap::new();
    // Rows of tables headed `| limit | value | when it is hit |` only.
    let mut walked = false;
    for line in page.lines() {
        if !line.starts_with('|') {
            walked = false;
            continue;
        }
        if line.starts_with("| limit | value | when it is hit |") {
            walked = true;
            continue;
        }
        let Some(rest) = line.strip_prefix("| `").filter(|_| walked) else {
            continue;
        };
        let Some((name, _)) = rest.split_once('`') else {
            continue;
        };
        assert!(
            rows.insert(name.to_string(), line.to_string()).is_none(),
            "`{name}` is documented twice"
        );
    }
    rows
}

#[test]
fn every_documented_limit_triggers_with_its_documented_message() {
    let rows = documented();
    let cases = cases();
    let mut failures = Vec::new();
    for name in rows.keys() {
        if !cases.iter().any(|c| c.limit == name) {
            failures.push(format!(
                "`{name}` is documented but has no case in tests/limits.rs"
            ));
        }
    }
    for case in &cases {
        let Some(row) = rows.get(case.limit) else {
            failures.push(format!(
                "`{}` has a case but no row in docs/limits.md",
                case.limit
            ));
            continue;
        };
        for s in case.says {
            if !row.contains(s) {
                failures.push(format!(
                    "`{}`: the row does not say `{s}`: {row}",
                    case.limit
                ));
            }
        }
        let out = match &case.reach {
            Reach::Cli {
                files,
                args,
                status,
            } => {
                let dir = tempfile::tempdir().unwrap();
                std::fs::create_dir_all(dir.path().join("assets")).unwrap();
                files(dir.path());
                let (code, out) = sinew(dir.path(), args);
                if code != *status {
                    failures.push(format!(
                        "`{}`: `sinew {}` exited {code}, expected {status}: {}",
                        case.limit,
                        args.join(" "),
                        out.chars().take(2000).collect::<String>()
                    ));
                }
                out
            }
            Reach::Lib(f) => f(),
        };
        for s in case.says {
            if !out.contains(s) {
                failures.push(format!(
                    "`{}`: output lacks `{s}`: {}",
                    case.limit,
                    out.chars().take(2000).collect::<String>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}
