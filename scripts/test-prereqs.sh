#!/usr/bin/env bash
# Run by `npm test` before the build: the programs the tests use that npm does not install. A test
# run needs Debian's chromium (the browser tests; CHROMIUM_PATH names another one), redis-server (the
# Redis tests start their own) and python3-websockets (a DevTools client written in another
# language). As root with apt-get, what is missing is installed, as .ci/run used to do; otherwise
# the run stops here, in one line naming the command to run, instead of failing test by test.
set -euo pipefail

missing=()
if [ -n "${CHROMIUM_PATH:-}" ]; then
  if [ ! -x "$CHROMIUM_PATH" ]; then
    echo "npm test: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable: point it at a Chromium, or unset it to use /usr/bin/chromium (apt-get install chromium)" >&2
    exit 1
  fi
elif [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium)
fi
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# Debian's package serves Debian's interpreter, not one a version manager (pyenv) puts first on
# PATH; PYTHON3 names another.
"${PYTHON3:-/usr/bin/python3}" -c 'import websockets' >/dev/null 2>&1 || missing+=(python3-websockets)
[ ${#missing[@]} -eq 0 ] && exit 0

install="apt-get install -y ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "npm test: installing ${missing[*]} from Debian" >&2
  if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; then
    exit 0
  fi
  echo "npm test: could not install ${missing[*]}; run \`apt-get update && $install\`, then npm test again" >&2
  exit 1
fi
echo "npm test: missing ${missing[*]}; run \`sudo apt-get update && sudo $install\` (Debian or Ubuntu), then npm test again" >&2
exit 1
