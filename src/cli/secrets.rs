//! Secrets on the command line (`--webhook-secret`, `--status-token`, `--database-url`,
//! ...) can be read by every user of the machine (`ps`, `/proc/PID/cmdline`). Each secret
//! is also read from its environment variable, or from a file named by the same variable
//! with `_FILE` after it (`BLAST_STATUS_TOKEN_FILE=/run/secrets/status-token`, as Docker
//! and systemd hand secrets over). The flag still works, with a warning.
//!
//! A secret is an argument whose environment value is hidden from `--help`
//! (`hide_env_values`): that one mark, set where the argument is declared, makes it take a
//! file and warn as a flag, so a secret added later does both too.

use std::collections::BTreeSet;
use std::io::Read as _;

use clap::parser::ValueSource;
use clap::{ArgMatches, Command, CommandFactory as _, FromArgMatches as _};

use super::Cli;

/// The longest secret file read: a private key is a few KB.
const MAX_SECRET_FILE: u64 = 64 * 1024;

/// The command line, with secrets read from their `_FILE`s first; a secret given as a
/// flag is warned about on stderr. Exits with clap's message on a usage error, and with
/// one line on a secret file that cannot be read.
pub fn parse() -> Cli {
    if let Err(e) = load_secret_files(&built()) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
    // Built again: an argument reads its variable when it is defined.
    let command = built();
    let matches = command.clone().get_matches();
    for warning in flag_warnings(&command, &matches) {
        eprintln!("warning: {warning}");
    }
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The command line's definition with global arguments copied into the subcommands, as
/// the matches it gives see them.
fn built() -> Command {
    let mut command = Cli::command();
    command.build();
    command
}

/// The environment variables of every secret argument of `command` and its subcommands.
fn secret_variables(command: &Command) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for arg in command.get_arguments() {
        if let (true, Some(env)) = (arg.is_hide_env_values_set(), arg.get_env()) {
            names.insert(env.to_string_lossy().into_owned());
        }
    }
    for sub in command.get_subcommands() {
        names.extend(secret_variables(sub));
    }
    names
}

/// For each secret `NAME` whose `NAME_FILE` is set, sets `NAME` to the file's text (its
/// final line end removed), so the argument reads it as from the environment.
fn load_secret_files(command: &Command) -> Result<(), String> {
    for name in secret_variables(command) {
        let file_var = format!("{name}_FILE");
        let Some(path) = std::env::var_os(&file_var) else {
            continue;
        };
        if std::env::var_os(&name).is_some() {
            return Err(format!(
                "both {name} and {file_var} are set: keep one (the file, to keep the secret out of the environment)"
            ));
        }
        let shown = std::path::Path::new(&path).display().to_string();
        let mut text = String::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_SECRET_FILE + 1).read_to_string(&mut text))
            .map_err(|e| format!("{file_var}: cannot read {shown}: {e}"))?;
        if text.len() as u64 > MAX_SECRET_FILE {
            return Err(format!(
                "{file_var}: {shown} is over {} KB: not a secret",
                MAX_SECRET_FILE / 1024
            ));
        }
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        // Before any thread is started (main calls this first): nothing reads the
        // environment while it changes.
        std::env::set_var(&name, text);
    }
    Ok(())
}

/// One warning for each secret given as a flag, in the subcommands that ran.
fn flag_warnings(command: &Command, matches: &ArgMatches) -> BTreeSet<String> {
    let mut warnings = BTreeSet::new();
    for arg in command.get_arguments() {
        let (true, Some(env), Some(long)) =
            (arg.is_hide_env_values_set(), arg.get_env(), arg.get_long())
        else {
            continue;
        };
        let id = arg.get_id().as_str();
        if matches.value_source(id) == Some(ValueSource::CommandLine)
            && !plainly_public(matches, id)
        {
            let env = env.to_string_lossy();
            warnings.insert(format!(
                "--{long} on the command line can be read by every user of this machine \
                 (ps, /proc): set {env}, or {env}_FILE to a file holding it, instead"
            ));
        }
    }
    if let Some((name, sub_matches)) = matches.subcommand() {
        if let Some(sub) = command.find_subcommand(name) {
            warnings.extend(flag_warnings(sub, sub_matches));
        }
    }
    warnings
}

/// A URL with no password in it (`postgres://postgres@127.0.0.1/db`, trust auth) holds no
/// secret: given as a flag, it is not warned about.
fn plainly_public(matches: &ArgMatches, id: &str) -> bool {
    let Some(mut values) = matches.get_raw(id) else {
        return false;
    };
    values.all(|v| {
        v.to_str()
            .and_then(|v| url::Url::parse(v).ok())
            .is_some_and(|u| {
                u.password().is_none() && !u.query_pairs().any(|(k, _)| k.contains("password"))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_secret_argument_is_known_by_its_variable() {
        let names = secret_variables(&built());
        for name in [
            "GITHUB_WEBHOOK_SECRET",
            "GITHUB_PRIVATE_KEY",
            "DATABASE_URL",
            "BLAST_DATABASE_URL",
            "BLAST_STATUS_TOKEN",
            "BLAST_CREDENTIALS_KEY",
            "BLAST_MCP_TOKEN",
        ] {
            assert!(names.contains(name), "{name}: {names:?}");
        }
        assert!(!names.contains("GITHUB_APP_ID"), "{names:?}");
    }

    #[test]
    fn a_secret_flag_warns_and_its_variable_does_not() {
        let command = built();
        let matches = command
            .clone()
            .try_get_matches_from([
                "blast-radius",
                "deliver",
                "--event",
                "ping",
                "--payload",
                "p.json",
                "--secret",
                "hunter2",
            ])
            .unwrap();
        let warnings: Vec<String> = flag_warnings(&command, &matches).into_iter().collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("--secret on the command line"));
        assert!(warnings[0].contains("GITHUB_WEBHOOK_SECRET_FILE"));
        assert!(!warnings[0].contains("hunter2"));
        let matches = command
            .clone()
            .try_get_matches_from([
                "blast-radius",
                "deliver",
                "--event",
                "ping",
                "--payload",
                "p.json",
            ])
            .unwrap();
        assert!(flag_warnings(&command, &matches).is_empty());
    }
}
