#!/bin/sh
# Installs zsh and fish for the completion tests (test/e2e/completion.test.ts) when they are
# absent. Debian/Ubuntu runners (apt-get); needs root or passwordless sudo.
set -eu
missing=""
command -v zsh >/dev/null 2>&1 || missing="$missing zsh"
command -v fish >/dev/null 2>&1 || missing="$missing fish"
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
echo "installing$missing for the completion tests" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
# shellcheck disable=SC2086 # $missing is a list of package names
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
