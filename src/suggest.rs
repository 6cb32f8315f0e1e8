//! Close-match suggestions ("did you mean …?"): the one edit-distance implementation every
//! diagnostic uses — optimal string alignment, with graph.md's threshold max(2, len/3).

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), by chars.
/// Inputs longer than 256 chars are compared by length only (bounded cost on hostile input).
pub fn osa(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 256 || b.len() > 256 {
        return a.len().abs_diff(b.len()).max(1);
    }
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    let mut d = vec![0usize; (n + 1) * w];
    for i in 0..=n {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(m + 1) {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[n * w + m]
}

/// The closest candidate within the spec's threshold max(2, len/3) (ties: the first in
/// candidate order).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_within(word, candidates, 2usize.max(word.chars().count() / 3))
}

/// The closest candidate at distance ≤ `limit` (ties: the first in candidate order).
pub fn closest_within<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = osa(word, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_by_hand() {
        assert_eq!(osa("int.add", "int.add"), 0);
        assert_eq!(osa("int.ad", "int.add"), 1);
        assert_eq!(osa("itn.add", "int.add"), 1); // one transposition
        assert_eq!(osa("ca", "abc"), 3); // OSA, not Damerau: no edit of a transposed pair
        assert_eq!(osa("", "abc"), 3);
    }

    #[test]
    fn closest_respects_threshold_and_order() {
        let kinds = ["int.add", "int.abs", "float.add"];
        assert_eq!(closest("int.adf", kinds), Some("int.add"));
        assert_eq!(closest("zzzzzz", kinds), None);
        // threshold max(2, len/3): "footstep_x" (10 chars) allows 3
        assert_eq!(closest("footstep_x", ["footstep_l"]), Some("footstep_l"));
        assert_eq!(closest("fotstep_xyz", ["footstep_l"]), None);
    }
}
