#!/bin/sh
# Installs the system tools some tests drive for real, when they are absent: zsh and fish
# (completion tests), tmux (the route wizard in a real terminal), jq (the README's shell
# recipes, test/e2e/readme-recipes.test.ts) and PostgreSQL's server binaries (the team-state
# tests start a throwaway server of their own, test/helpers/postgres.ts: Debian's `postgresql`
# package, unless /usr/lib/postgresql/*/bin/postgres exists or SCHEDCTL_TEST_PG_BIN points at
# binaries; the package's own "main" cluster is not created, the tests never use it).
# Debian/Ubuntu (apt-get); needs root or passwordless sudo.
set -eu
missing=""
for tool in zsh fish tmux jq; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
pg_server=""
for bin in ${SCHEDCTL_TEST_PG_BIN:+"$SCHEDCTL_TEST_PG_BIN/postgres"} /usr/lib/postgresql/*/bin/postgres; do
  [ -x "$bin" ] && pg_server="$bin" && break
done
[ -z "$pg_server" ] && missing="$missing postgresql"
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
echo "installing$missing for the tests" >&2
export DEBIAN_FRONTEND=noninteractive
if [ -z "$pg_server" ]; then
  # A drop-in read by postgresql-common (createcluster.conf ends with an include_dir of this
  # directory): no cluster on port 5432 started at install time.
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/schedctl-tests.conf >/dev/null
fi
$sudo apt-get update -qq >/dev/null
# shellcheck disable=SC2086 # $missing is a list of package names
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
