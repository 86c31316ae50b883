//! "Did you mean ...?": the declared name closest to a misspelled one.

/// The candidate closest to `typo` by edit distance, if it is close enough
/// to be a plausible misspelling: at most a third of the longer name's
/// characters differ (so `Velocty` finds `Velocity`, `Mass` finds nothing in
/// `[Position, Velocity]`).
pub fn closest<'a>(typo: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .filter(|c| *c != typo)
        .map(|c| (edit_distance(&typo.to_lowercase(), &c.to_lowercase()), c))
        .filter(|&(d, c)| d * 3 <= typo.chars().count().max(c.chars().count()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// `; did you mean `name`?` for the closest candidate, or nothing.
pub fn did_you_mean<'a>(typo: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match closest(typo, candidates) {
        Some(c) => format!("; did you mean `{c}`?"),
        None => String::new(),
    }
}

/// Levenshtein distance (insertions, deletions, substitutions) with
/// adjacent transpositions counted as one edit, over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("Velocty", "Velocity"), 1);
        assert_eq!(edit_distance("Veolcity", "Velocity"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn closest_plausible_name() {
        let names = ["Position", "Velocity", "Life"];
        assert_eq!(closest("Velocty", names), Some("Velocity"));
        assert_eq!(closest("position", names), Some("Position"));
        assert_eq!(closest("Mass", names), None);
        assert_eq!(closest("movment", ["movement", "draw"]), Some("movement"));
    }
}
