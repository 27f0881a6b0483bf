//! The App manifest this server offers GitHub (`app-manifest.yml`, with `PUBLIC_URL`
//! filled in), and the addresses of the flow's steps on GitHub. Pure.

use serde_json::Value;

/// The manifest, as committed: its URLs say `PUBLIC_URL`.
pub const MANIFEST_YAML: &str = include_str!("../../../app-manifest.yml");

/// The manifest as JSON, every `PUBLIC_URL` at the start of a text replaced by
/// `public_url` (no trailing slash), and the App's name replaced by `name` when one is
/// given (App names are unique on GitHub: a second "Blast Radius" is refused).
pub fn manifest_json(public_url: &str, name: Option<&str>) -> Value {
    let mut manifest: Value =
        yaml_serde::from_str(MANIFEST_YAML).expect("app-manifest.yml is valid YAML");
    fill(&mut manifest, public_url);
    if let (Some(name), Some(object)) = (name.map(str::trim), manifest.as_object_mut()) {
        if !name.is_empty() {
            object.insert("name".into(), Value::String(name.to_string()));
        }
    }
    manifest
}

fn fill(value: &mut Value, public_url: &str) {
    match value {
        Value::String(s) => {
            if let Some(rest) = s.strip_prefix("PUBLIC_URL") {
                *s = format!("{public_url}{rest}");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| fill(v, public_url)),
        Value::Object(map) => map.values_mut().for_each(|v| fill(v, public_url)),
        _ => {}
    }
}

/// Where the manifest is posted: the new-App page of a personal account, or of the
/// organization `org`, carrying the flow's `state`.
pub fn new_app_url(web_url: &str, org: Option<&str>, state: &str) -> String {
    let web = web_url.trim_end_matches('/');
    match org {
        Some(org) => format!("{web}/organizations/{org}/settings/apps/new?state={state}"),
        None => format!("{web}/settings/apps/new?state={state}"),
    }
}

/// An organization's login as GitHub allows them: letters, digits and single hyphens
/// inside, at most 39 characters.
pub fn valid_org(org: &str) -> bool {
    !org.is_empty()
        && org.len() <= 39
        && org.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !org.starts_with('-')
        && !org.ends_with('-')
        && !org.contains("--")
}

/// Where a person installs the App: its page's `installations/new`.
pub fn install_url(html_url: &str) -> String {
    format!("{}/installations/new", html_url.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_points_github_at_this_server() {
        let m = manifest_json("https://blast.example.com", None);
        assert_eq!(m["url"], "https://blast.example.com");
        assert_eq!(
            m["hook_attributes"]["url"],
            "https://blast.example.com/webhook"
        );
        assert_eq!(m["hook_attributes"]["active"], true);
        assert_eq!(
            m["redirect_url"],
            "https://blast.example.com/setup/callback"
        );
        assert_eq!(m["public"], false);
        assert!(!m.to_string().contains("PUBLIC_URL"));
        // The least the features need, and nothing else.
        let permissions = m["default_permissions"].as_object().unwrap();
        let mut granted: Vec<_> = permissions
            .iter()
            .map(|(k, v)| format!("{k}:{}", v.as_str().unwrap()))
            .collect();
        granted.sort();
        assert_eq!(
            granted,
            [
                "checks:write",
                "contents:read",
                "metadata:read",
                "pull_requests:write"
            ]
        );
        let events: Vec<_> = m["default_events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        assert_eq!(
            events,
            ["push", "pull_request", "issue_comment", "repository"]
        );
    }

    #[test]
    fn a_name_given_replaces_the_default() {
        let m = manifest_json("http://127.0.0.1:3000", Some("  Blast Radius (acme) "));
        assert_eq!(m["name"], "Blast Radius (acme)");
        assert_eq!(manifest_json("http://x", Some(" "))["name"], "Blast Radius");
    }

    #[test]
    fn flow_addresses() {
        assert_eq!(
            new_app_url("https://github.com/", None, "s1"),
            "https://github.com/settings/apps/new?state=s1"
        );
        assert_eq!(
            new_app_url("https://github.com", Some("acme"), "s1"),
            "https://github.com/organizations/acme/settings/apps/new?state=s1"
        );
        assert_eq!(
            install_url("https://github.com/apps/blast-radius-acme"),
            "https://github.com/apps/blast-radius-acme/installations/new"
        );
        for ok in ["acme", "a-b-c", "A1"] {
            assert!(valid_org(ok), "{ok}");
        }
        for bad in ["", "-acme", "acme-", "a--b", "a/b", "a b", &"x".repeat(40)] {
            assert!(!valid_org(bad), "{bad}");
        }
    }
}
