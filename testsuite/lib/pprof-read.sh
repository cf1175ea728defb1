#!/bin/sh
# pprof-read.sh PROFILE: print a profile.proto file as pprof-read.cjs does,
# read by pprof-format from the npm registry (installed on first use into
# STAP_UNWIND_NPM, default /var/cache/stap-unwind/npm: outside the
# checkout, kept between runs).  Exit 3: no node or npm on this machine;
# 4: pprof-format could not be installed.
version=2.3.2
dir=${STAP_UNWIND_NPM:-/var/cache/stap-unwind/npm}
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null && command -v npm >/dev/null || {
	echo "pprof-read: no node or npm" >&2; exit 3; }
if [ "$(cat "$dir/node_modules/pprof-format/.stap-unwind-version" 2>/dev/null)" != $version ]; then
	mkdir -p "$dir" &&
	npm install --prefix "$dir" --silent --no-audit --no-fund --no-save \
		"pprof-format@$version" >&2 &&
	echo $version >"$dir/node_modules/pprof-format/.stap-unwind-version" || {
		echo "pprof-read: npm install pprof-format@$version failed" >&2; exit 4; }
fi
NODE_PATH=$dir/node_modules exec node "$here/pprof-read.cjs" "$1"
