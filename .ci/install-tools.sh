#!/bin/sh
# Installs the system tools some tests drive for real, when they are absent: zsh and fish
# (completion tests), tmux (the route wizard in a real terminal) and jq (the README's shell
# recipes, test/e2e/readme-recipes.test.ts). Debian/Ubuntu (apt-get); needs root or
# passwordless sudo.
set -eu
missing=""
for tool in zsh fish tmux jq; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
echo "installing$missing for the tests" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
# shellcheck disable=SC2086 # $missing is a list of package names
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
