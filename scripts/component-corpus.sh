#!/usr/bin/env bash
# The component corpus: published packages whose npm tarballs hold their components'
# sources (.vue, .svelte), pinned, for the differential test of component files against
# vue-tsc's and svelte2tsx's TypeScript (benches/precision/components.mjs; .ci/run runs
# it). Each package is unpacked into DIR/<name>, its build directory renamed (the
# indexer leaves `dist/` out, and here it is the package's code), and committed to a git
# repository of its own (the harness lists files with git).
#   scripts/component-corpus.sh DIR
set -euo pipefail
dir=${1:?usage: component-corpus.sh DIR}
pkgs=(primevue@4.3.3 v-calendar@3.1.2 bits-ui@1.3.19 flowbite-svelte@0.48.4)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for spec in "${pkgs[@]}"; do
  name=${spec%@*}
  dest="$dir/${name//\//__}"
  rm -rf "$dest"
  mkdir -p "$dest"
  tarball=$(cd "$stage" && npm pack "$spec" --silent --loglevel=error | tail -n 1)
  tar xzf "$stage/$tarball" -C "$dest" --strip-components=1
  rm -f "$stage/$tarball"
  if [[ -d $dest/dist ]]; then mv "$dest/dist" "$dest/lib"; fi
  (cd "$dest" && git init -q && git add -A &&
    git -c user.name=corpus -c user.email=corpus@localhost commit -qm "$spec")
done
printf '%s\n' "${pkgs[@]}" > "$dir/MANIFEST"
