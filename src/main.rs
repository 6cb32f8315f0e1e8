//! The `sinew` command line: a thin shell over the library (see `sinew::cli`).

fn main() -> std::process::ExitCode {
    sinew::cli::main()
}
