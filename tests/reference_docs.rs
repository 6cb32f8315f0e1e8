//! The reference pages stay true to the code: `docs/nodes.md` is exactly what the node table
//! renders (`SINEW_BLESS=1 cargo test --test reference_docs` rewrites it), `docs/scenes.md`
//! documents every field and every action the scene parser accepts, and no page points to
//! files outside the repository.

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn nodes_md_is_the_rendered_node_table() {
    let want = sinew::nodes::reference::markdown();
    let path = "docs/nodes.md";
    if std::env::var_os("SINEW_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
        return;
    }
    let have = read(path);
    if have != want {
        let line = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .map_or(have.lines().count().min(want.lines().count()) + 1, |i| {
                i + 1
            });
        panic!(
            "docs/nodes.md is stale from line {line}: regenerate it with \
             `SINEW_BLESS=1 cargo test --test reference_docs` and commit it"
        );
    }
}

#[test]
fn nodes_md_shows_every_kind_default_and_property() {
    let md = sinew::nodes::reference::markdown();
    for k in sinew::nodes::BUILTINS {
        assert!(md.contains(k.description()), "{}", k.kind);
        for p in k.properties {
            assert!(
                md.contains(&format!(
                    "| `{}` | {} | `{}` |",
                    p.name,
                    p.ty.name(),
                    p.default
                )),
                "{}.{}",
                k.kind,
                p.name
            );
        }
    }
    assert!(md.contains("| `target` | entity | `self` | warning W0303 |"));
    assert!(md.contains("| `first` | int | `0` | silent |"));
    assert!(md.contains("| `start_open` | bool | `true` |"));
}

#[test]
fn scenes_md_documents_every_field_and_action() {
    let md = read("docs/scenes.md");
    for (strukt, fields) in sinew::scene::parse::FIELDS {
        for f in *fields {
            assert!(
                md.contains(&format!("`{f}`")),
                "docs/scenes.md does not document `{f}` of {strukt}"
            );
        }
    }
    for form in sinew::scene::parse::action_forms() {
        assert!(
            md.contains(&format!("`{form}`")),
            "docs/scenes.md does not document the action `{form}`"
        );
    }
}

#[test]
fn no_page_points_outside_the_repository() {
    let mut pages = vec![Path::new("README.md").to_path_buf()];
    for e in std::fs::read_dir("docs").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p);
        }
    }
    pages.sort();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, line) in text.lines().enumerate() {
            // The shared specs and background seeds lived beside the repository; in-repo
            // folders such as `fuzz/seeds/` are fine.
            for bad in ["../shared", "/work/", "shared/", "`spec/", " spec/"] {
                assert!(
                    !line.contains(bad),
                    "{}:{}: points outside the repository ({bad}): {line}",
                    page.display(),
                    n + 1
                );
            }
        }
    }
}
