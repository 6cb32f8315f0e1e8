//! Close-match suggestions ("did you mean …?"): the one edit-distance implementation every
//! diagnostic uses — optimal string alignment, with graph.md's threshold max(2, len/3).
//!
//! The search is bounded for every caller, whatever the input (see `docs/limits.md`):
//! * words and candidates longer than [`MAX_LEN`] chars are not compared (no suggestion);
//! * a candidate whose length differs from the word's by more than the bound is skipped
//!   without decoding it (the distance is at least the length difference);
//! * a candidate whose characters differ from the word's as a multiset by more than the bound
//!   is skipped in one pass over it (the multiset difference is a lower bound of the distance);
//! * the distance is computed only up to the current bound (the threshold, then one less than
//!   the best distance found so far): only cells on diagonals an alignment within the bound can
//!   use are computed, and a row whose every cell exceeds the bound ends the comparison;
//! * an exact match ends the search;
//! * one search computes at most [`MAX_WORK`] table cells; past that it stops and returns the
//!   best match found so far (deterministic: candidates are taken in the caller's order).
//!   Reading the candidates (at most [`MAX_LEN`] chars each) is linear in their number: a
//!   40,000-event catalog is one pass over it.
//!
//! Within those bounds the answer is exactly the spec's: the closest candidate at distance
//! ≤ the threshold, ties going to the first in candidate order.

/// Longest word or candidate compared, in chars.
pub const MAX_LEN: usize = 128;

/// Most edit-distance table cells one search computes.
pub const MAX_WORK: u64 = 1 << 20;

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), by chars.
/// Unbounded in the inputs' lengths: for suggestions use [`closest`], which bounds the work.
pub fn osa(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut work = u64::MAX;
    bounded_osa(
        &a,
        &b,
        a.len().max(b.len()),
        &mut Rows::default(),
        &mut work,
    )
    .unwrap_or(usize::MAX)
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
    search(word, candidates, limit).best
}

/// What one search found and what it cost.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Search<'a> {
    /// The closest candidate within the limit.
    pub best: Option<&'a str>,
    /// Edit-distance table cells computed (≤ [`MAX_WORK`]).
    pub work: u64,
    /// Candidate chars read (each candidate at most [`MAX_LEN`] + 1; not budgeted).
    pub read: u64,
    /// The budget ran out before every candidate was compared.
    pub exhausted: bool,
}

/// [`closest_within`] with its cost: the measure `docs/limits.md` and the tests bound.
pub fn search<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Search<'a> {
    let mut out = Search::default();
    let w: Vec<char> = word.chars().take(MAX_LEN + 1).collect();
    if w.len() > MAX_LEN {
        return out;
    }
    let word_bag = Bag::of(&w);
    let mut budget = MAX_WORK;
    let mut rows = Rows::default();
    let mut cand: Vec<char> = Vec::with_capacity(MAX_LEN + 1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        // The bound a candidate must meet: the limit, then strictly better than the best.
        let bound = match best {
            Some((0, _)) => break,
            Some((d, _)) => d - 1,
            None => limit,
        };
        // Length filter on bytes (chars ≤ bytes ≤ 4·chars), before reading the candidate.
        if c.len().div_ceil(4) > w.len() + bound || c.len() + bound < w.len() {
            continue;
        }
        cand.clear();
        cand.extend(c.chars().take(MAX_LEN + 1));
        out.read += cand.len() as u64;
        if cand.len() > MAX_LEN
            || cand.len().abs_diff(w.len()) > bound
            || word_bag.lower_bound(&w, &cand) > bound
        {
            continue;
        }
        match bounded_osa(&w, &cand, bound, &mut rows, &mut budget) {
            Some(d) => best = Some((d, c)),
            None if budget == 0 => {
                out.exhausted = true;
                break;
            }
            None => {}
        }
    }
    out.work = MAX_WORK - budget;
    out.best = best.map(|(_, c)| c);
    out
}

/// A word's characters as a multiset over 256 buckets (a character's bucket is its low byte
/// mixed with the next: exact for ASCII; merging characters only weakens the lower bound).
struct Bag([u16; 256]);

fn bucket(c: char) -> usize {
    let c = c as u32;
    ((c ^ (c >> 8) ^ (c >> 16)) & 0xFF) as usize
}

impl Bag {
    fn of(w: &[char]) -> Bag {
        let mut b = [0u16; 256];
        for &c in w {
            b[bucket(c)] += 1; // at most MAX_LEN per bucket
        }
        Bag(b)
    }

    /// max(|W − C|, |C − W|) over the buckets: no edit changes it by more than one (a
    /// transposition not at all), so it never exceeds the OSA distance.
    fn lower_bound(&self, w: &[char], cand: &[char]) -> usize {
        let mut rem = self.0;
        let mut extra = 0usize; // |C − W|
        for &c in cand {
            let b = &mut rem[bucket(c)];
            if *b > 0 {
                *b -= 1;
            } else {
                extra += 1;
            }
        }
        let missing = w.len() - (cand.len() - extra); // |W − C|
        extra.max(missing)
    }
}

/// Three reused rows of the distance table (OSA reads the row before the previous one).
#[derive(Default)]
struct Rows([Vec<usize>; 3]);

/// The OSA distance of `a` and `b` when it is ≤ `k`, else `None`.
///
/// An alignment of cost ≤ k passes only through cells (i, j) whose diagonal δ = j − i has
/// |δ| + |δ − (m − n)| ≤ k (reaching the cell costs ≥ |δ|, finishing from it ≥ |δ − (m − n)|),
/// so only that band is computed (cells outside count as infinitely far); row minima never
/// decrease, so a row whose every cell exceeds `k` ends it. Every computed cell is taken from
/// `budget` (`None` when it runs out, with the budget set to 0).
fn bounded_osa(
    a: &[char],
    b: &[char],
    k: usize,
    rows: &mut Rows,
    budget: &mut u64,
) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    let delta = m as isize - n as isize;
    if delta.unsigned_abs() > k {
        return None;
    }
    let slack = ((k - delta.unsigned_abs()) / 2) as isize;
    let (d_lo, d_hi) = (delta.min(0) - slack, delta.max(0) + slack);
    const FAR: usize = usize::MAX / 4;
    let [pp, prev, cur] = &mut rows.0;
    for r in [&mut *pp, &mut *prev, &mut *cur] {
        r.clear();
        r.resize(m + 1, FAR);
    }
    for (j, cell) in prev.iter_mut().enumerate().take(k.min(m) + 1) {
        *cell = j;
    }
    for i in 1..=n {
        let lo = (i as isize + d_lo).max(1) as usize;
        let hi = (i as isize + d_hi).clamp(0, m as isize) as usize;
        let cost = (hi + 1).saturating_sub(lo) as u64;
        if *budget < cost {
            *budget = 0;
            return None;
        }
        *budget -= cost;
        // The band's left neighbour: column 0 (i deletions) or outside the band.
        cur[lo - 1] = if lo == 1 { i } else { FAR };
        let mut row_min = cur[lo - 1];
        for j in lo..=hi {
            let sub = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + sub);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(pp[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if hi < m {
            cur[hi + 1] = FAR;
        }
        if row_min > k {
            return None;
        }
        std::mem::swap(pp, prev);
        std::mem::swap(prev, cur);
    }
    let d = prev[m];
    (d <= k).then_some(d)
}

/// Most choices a [`listing`] names (the rest are counted).
pub const MAX_LISTED: usize = 16;

/// A note naming the valid choices: `` clip slots: `idle`, `run` `` (each quoted and cut to 64
/// bytes), at most [`MAX_LISTED`] of them then `… (N in all)`; `None` when there are none.
pub fn listing(what: &str, choices: &[&str]) -> Option<String> {
    if choices.is_empty() {
        return None;
    }
    let shown: Vec<String> = choices
        .iter()
        .take(MAX_LISTED)
        .map(|c| format!("`{}`", crate::ron_span::short(c)))
        .collect();
    Some(if choices.len() > MAX_LISTED {
        format!("{what}: {}, … ({} in all)", shown.join(", "), choices.len())
    } else {
        format!("{what}: {}", shown.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook full-table OSA: the reference the bounded one must agree with.
    fn reference(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
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
        // ties go to the first candidate; a closer later one wins
        assert_eq!(closest("abcd", ["abxd", "abyd"]), Some("abxd"));
        assert_eq!(closest("abcd", ["axyd", "abxd"]), Some("abxd"));
    }

    proptest::proptest! {
        #[test]
        fn bounded_agrees_with_the_full_table(
            a in "[abc]{0,12}", b in "[abc]{0,12}", k in 0usize..14
        ) {
            let full = reference(&a, &b);
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let mut budget = u64::MAX;
            let got = bounded_osa(&a, &b, k, &mut Rows::default(), &mut budget);
            proptest::prop_assert_eq!(got, (full <= k).then_some(full));
        }

        #[test]
        fn search_finds_the_reference_answer(
            word in "[abcd]{0,8}", cands in proptest::collection::vec("[abcd]{0,8}", 0..12)
        ) {
            let limit = 2usize.max(word.chars().count() / 3);
            let mut want: Option<(usize, &str)> = None;
            for c in &cands {
                let d = reference(&word, c);
                if d <= limit && want.is_none_or(|(bd, _)| d < bd) {
                    want = Some((d, c));
                }
            }
            proptest::prop_assert_eq!(
                closest(&word, cands.iter().map(String::as_str)),
                want.map(|(_, c)| c)
            );
        }
    }

    /// (cells, chars read) of one search of a misspelt `len`-char word over `count` unrelated
    /// names of `len` chars (issue 17: unknown references against long names).
    fn cost(count: usize, len: usize) -> (u64, u64) {
        let names: Vec<String> = (0..count)
            .map(|i| format!("{i:0>len$}").replace('0', "z")[..len].to_string())
            .collect();
        let word = "q".repeat(len);
        let s = search(&word, names.iter().map(String::as_str), len / 3);
        assert_eq!(s.best, None);
        (s.work, s.read)
    }

    #[test]
    fn unrelated_names_cost_one_read_and_no_table() {
        let ((cells1, read1), (cells2, read2)) = (cost(200, 40), cost(200, 80));
        // The full table would be 40·40 cells per name, 4× that at twice the length.
        assert_eq!((cells1, cells2), (0, 0), "the multiset filter rejects them");
        assert_eq!((read1, read2), (200 * 40, 200 * 80), "each read once");
    }

    #[test]
    fn a_close_match_at_the_end_of_a_large_catalog_is_found() {
        // 40,000 identities of the same shape; the misspelt one matches the last.
        let ids: Vec<String> = (0..40_000)
            .map(|i| format!("animseq::locomotion_{i:05}.footstep_left"))
            .collect();
        let s = search(
            "animseq::locomotion_39999.footstep_lfet",
            ids.iter().map(String::as_str),
            13,
        );
        assert_eq!(s.best, Some(ids[39_999].as_str()));
        assert!(!s.exhausted && s.work <= MAX_WORK, "{s:?}");
    }

    #[test]
    fn one_search_stops_at_the_work_budget() {
        // Same characters as the word (no multiset filter), far apart as strings, longest
        // allowed: each comparison needs table work; the budget ends the search.
        let word = "ab".repeat(MAX_LEN / 2);
        let half = MAX_LEN / 2;
        let blocks: Vec<String> = (0..=half)
            .map(|x| {
                format!(
                    "{}{}{}",
                    "a".repeat(x),
                    "b".repeat(half),
                    "a".repeat(half - x)
                )
            })
            .collect();
        let names: Vec<&str> = blocks
            .iter()
            .map(String::as_str)
            .cycle()
            .take(20_000)
            .collect();
        let s = search(&word, names.iter().copied(), MAX_LEN / 3);
        assert!(s.exhausted);
        assert!(s.work <= MAX_WORK, "{} cells", s.work);
    }

    #[test]
    fn overlong_words_and_candidates_are_not_compared() {
        let long = "x".repeat(MAX_LEN + 1);
        assert_eq!(closest(&long, ["x"]), None);
        assert_eq!(closest("xxxx", [long.as_str(), "xxxy"]), Some("xxxy"));
        assert_eq!(search("xxxx", [long.as_str()], 2).work, 0);
    }

    #[test]
    fn listings_quote_and_bound_the_choices() {
        assert_eq!(listing("slots", &[]), None);
        assert_eq!(
            listing("slots", &["idle", "run"]).as_deref(),
            Some("slots: `idle`, `run`")
        );
        let many: Vec<String> = (0..40).map(|i| format!("s{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let l = listing("slots", &many).unwrap();
        assert!(l.ends_with("`s15`, … (40 in all)"), "{l}");
        assert!(!l.contains("`s16`"), "{l}");
    }
}
