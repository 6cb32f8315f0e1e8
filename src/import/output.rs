//! The output budget: the bytes one import may hand out to be written, a function of the
//! input's size alone, so it is known before anything is written. Every generated file is
//! measured before it is handed to the sink; the file that would cross the budget is not
//! handed out and the import is blocked (`E0710`, naming the budget), so the caller, which
//! commits files only once the import succeeded, writes none of them.

use super::Asset;
use super::diagnostics::{E_LIMIT, Report};

/// Bytes any import may write.
pub const OUTPUT_BASE: usize = 16 << 20;

/// Bytes an import may write per byte of input (the model and its external buffers).
pub const OUTPUT_PER_INPUT_BYTE: usize = 16;

/// The output budget of an import whose model and external buffers hold `input` bytes:
/// 16 MiB + 16 × `input`.
pub fn budget(input: usize) -> usize {
    OUTPUT_BASE.saturating_add(input.saturating_mul(OUTPUT_PER_INPUT_BYTE))
}

/// The sink, behind the budget.
pub struct Output<'s> {
    budget: usize,
    left: usize,
    sink: &'s mut dyn FnMut(Asset),
}

impl<'s> Output<'s> {
    /// `budget` bytes for `sink`.
    pub fn new(budget: usize, sink: &'s mut dyn FnMut(Asset)) -> Output<'s> {
        Output {
            budget,
            left: budget,
            sink,
        }
    }

    /// Hands `asset` to the sink when it fits what is left of the budget; otherwise reports
    /// `E0710` and returns `None` (the asset is dropped, the import is blocked).
    pub fn give(&mut self, asset: Asset, report: &mut Report) -> Option<()> {
        let n = asset.text_ref().len();
        if n > self.left {
            report.error(
                E_LIMIT,
                format!(
                    "the import's output would exceed its budget of {} bytes (16 MiB + 16 × \
                     the model's and its buffers' {} bytes) at `{}` ({n} bytes, {} already \
                     taken): nothing is written; fewer skins, fewer or LINEAR keys make it fit",
                    self.budget,
                    (self.budget - OUTPUT_BASE) / OUTPUT_PER_INPUT_BYTE,
                    crate::ron_span::short(&asset.file),
                    self.budget - self.left,
                ),
            );
            return None;
        }
        self.left -= n;
        (self.sink)(asset);
        Some(())
    }
}
