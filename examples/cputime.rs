fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
fn main() {
    let text = std::fs::read_to_string("/tmp/big.bpg").unwrap();
    let src = sinew::diag::SourceFile::new("big.bpg", text);
    let cat = sinew::catalog::Catalog::default();
    let n = 100;
    let c0 = cpu();
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(sinew::compile::compile(&src, &cat));
    }
    println!(
        "cpu {:.2} ms/iter, wall {:.2} ms/iter",
        (cpu() - c0) * 1000.0 / n as f64,
        t0.elapsed().as_secs_f64() * 1000.0 / n as f64
    );
}
