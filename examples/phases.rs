fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
fn main() {
    let text = std::fs::read_to_string("/tmp/big.bpg").unwrap();
    let src = sinew::diag::SourceFile::new("big.bpg", text);
    let cat = sinew::catalog::Catalog::default();
    let n = 60;
    let mut t = [0f64; 6];
    for _ in 0..n {
        let c = cpu();
        let (file, _) = sinew::graph::parse(&src);
        t[0] += cpu() - c;
        let c = cpu();
        let (g, spans, _) = sinew::compile::resolve::resolve(&src, &file, &cat);
        t[1] += cpu() - c;
        let c = cpu();
        let r = sinew::compile::check::check(&src, &g, &spans, true);
        t[2] += cpu() - c;
        let c = cpu();
        let m = sinew::compile::lower::lower(&g).unwrap();
        t[3] += cpu() - c;
        let c = cpu();
        let v = sinew::bytecode::verify(m).unwrap();
        t[4] += cpu() - c;
        let c = cpu();
        drop((file, g, spans, r, v));
        t[5] += cpu() - c;
    }
    for (name, x) in ["parse", "resolve", "check", "lower", "verify", "drop"]
        .iter()
        .zip(t)
    {
        println!("{name}: {:.2} ms", x * 1000.0 / n as f64);
    }
}
