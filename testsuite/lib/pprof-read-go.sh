#!/bin/sh
# pprof-read-go.sh PROFILE: print a profile.proto file's samples as
# pprof-read.cjs does (outer;...;inner V, one line per sample, the first
# line of each location), read by the Go toolchain's pprof (`go tool pprof
# -raw`: the reader every pprof user has; Debian's golang-go).  Exit 3: no
# go on this machine; 4: pprof refused the file.
command -v go >/dev/null || { echo "pprof-read-go: no go" >&2; exit 3; }
# -symbolize=none: the names as the file has them; pprof's demangler
# would otherwise shorten any name with <...> in it as a C++ template
# ("py::f:<frozen codecs>" to "py::f:").
raw=$(HOME=${HOME:-/tmp} go tool pprof -raw -symbolize=none "$1" 2>&1) || {
	printf '%s\n' "$raw" | tail -n 1 >&2; exit 4; }
# -raw prints "Samples:", a header naming the sample types, then per
# sample "V...: LOC..." (innermost location first), then "Locations" with
# "ID: 0xADDR M=N NAME :LINE s=START" (an inlined frame's further lines
# are indented more; the first line of each location is the one kept),
# then "Mappings".
printf '%s\n' "$raw" | awk '
	/^Samples:/ { part = "samples"; next }
	/^Locations/ { part = "locations"; next }
	/^Mappings/ { part = "" ; next }
	part == "samples" && /^ *-?[0-9][0-9 ]*: / {
		n++
		v = $0; sub(/:.*/, "", v); sub(/^ +/, "", v); gsub(/ +/, ",", v)
		ids = $0; sub(/^[^:]*: */, "", ids); sub(/ +$/, "", ids)
		value[n] = v; stack[n] = ids
		next
	}
	part == "locations" && match($0, /^ *[0-9]+: 0x[0-9a-f]+ M=[0-9]+ /) {
		id = $0; sub(/^ */, "", id); sub(/:.*/, "", id)
		name = substr($0, RLENGTH + 1); sub(/ :[0-9]+ s=[0-9]+$/, "", name)
		loc[id] = name
		next
	}
	END {
		for (i = 1; i <= n; i++) {	# bound: the samples read
			k = split(stack[i], at, " ")
			line = ""
			for (j = k; j >= 1; j--)	# bound: the sample'"'"'s locations
				line = line (j < k ? ";" : "") (at[j] in loc ? loc[at[j]] : "?")
			print line " " value[i]
		}
	}'
