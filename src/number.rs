//! The one rule for printing an `f32` (issue 24): with its own shortest round-trip decimal
//! (`0.8f32` prints `0.8`), never widened to `f64` first (`0.800000011920929`). Human and JSON
//! output both go through [`f32_value`]: the `f64` whose shortest decimal is the `f32`'s, which
//! every `f64` printer (serde_json, `{}`) then writes as those same digits.

/// The `f64` with the same shortest decimal as `x` (`0.1f32` → `0.1`). Non-finite values stay
/// what they are.
pub fn f32_value(x: f32) -> f64 {
    if !x.is_finite() {
        return f64::from(x);
    }
    // Rust's `Display` of an f32 is its shortest round-trip decimal; a decimal of at most 9
    // significant digits reads back as the f64 whose shortest form it is.
    x.to_string().parse().unwrap_or(f64::from(x))
}

/// `x` as a JSON number with its own shortest decimal.
pub fn f32_json(x: f32) -> serde_json::Value {
    serde_json::Value::from(f32_value(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_f32_prints_its_own_shortest_decimal() {
        for (x, text) in [
            (0.8f32, "0.8"),
            (0.1, "0.1"),
            (0.746_666_7, "0.7466667"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1e-45, "1e-45"),
            (f32::MAX, "3.4028235e+38"),
        ] {
            assert_eq!(f32_json(x).to_string(), text, "{x:?}");
            assert_eq!(f32_value(x) as f32, x);
        }
        assert_eq!(format!("{}", f32_value(0.8)), "0.8");
        assert!(f32_value(f32::NAN).is_nan());
    }
}
