# man/mkman.awk: one man page per tapset function, function::NAME(3stap),
# from the function's "/** sfunction" comment, in the sections of
# SystemTap's own tapset pages (NAME, SYNOPSIS, ARGUMENTS, DESCRIPTION),
# so that `man function::NAME` finds ours beside stock's.
#
#   awk -v out=DIR -f man/mkman.awk tapset/*.stp
#
# The comment's grammar (SystemTap's, from kernel-doc):
#   /**
#    * sfunction NAME - SUMMARY
#    * @ARG: TEXT            (continued on the lines after)
#    *
#    * Section: TEXT         (Description:, Note: ...; blank lines part
#    *                        paragraphs)
#    */
#   function NAME[:TYPE] (ARGS) ...
# A comment whose sfunction is not followed by its function is an error,
# and so is a function documented twice.

# A comment line as roff: backslashes escaped, a leading control character
# made text, and @ARG in italics, as kernel-doc shows it.
function roff(s,    t) {
	gsub(/\\/, "\\e", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	t = ""
	while (match(s, /@[A-Za-z_][A-Za-z_0-9]*/)) {	# bound: the line's length
		t = t substr(s, 1, RSTART - 1) "\\fI" substr(s, RSTART + 1, RLENGTH - 1) "\\fR"
		s = substr(s, RSTART + RLENGTH)
	}
	return t s
}

# A text as printed: without the paragraph break a blank line at its end
# leaves.
function body(t) {
	sub(/\n\.PP\n$/, "", t)
	return t
}

function fail(msg) {
	printf("mkman: %s:%d: %s\n", FILENAME, FNR, msg) > "/dev/stderr"
	failed = 1
	exit 1
}

# Append a comment line to the text being read: an argument's, or a
# section's.
function add(line) {
	if (cur == "")
		return
	if (line == "")
		text[cur] = text[cur] "\n.PP\n"
	else if (text[cur] == "" || text[cur] ~ /\n$/)
		text[cur] = text[cur] roff(line)
	else
		text[cur] = text[cur] "\n" roff(line)
}

function write_page(sig,    f, i, s) {
	if (name in done)
		fail("function::" name " documented twice")
	done[name] = 1
	f = out "/function::" name ".3stap"
	printf(".TH \"FUNCTION::%s\" 3stap \"\" \"stap-unwind\" \"stap-unwind tapset\"\n", toupper(name)) > f
	printf(".SH NAME\nfunction::%s \\- %s\n", name, roff(summary)) > f
	printf(".SH SYNOPSIS\n.nf\n    %s\n.fi\n", roff(sig)) > f
	printf(".SH ARGUMENTS\n") > f
	if (nargs == 0)
		printf(".PP\nNone\n") > f
	for (i = 1; i <= nargs; i++)	# bound: the arguments
		printf(".TP\n\\fI%s\\fR\n%s\n", args[i], body(text["@" args[i]])) > f
	for (i = 1; i <= nsecs; i++) {	# bound: the sections
		s = secs[i]
		printf(".SH %s\n.PP\n%s\n", toupper(s), body(text[s])) > f
	}
	printf(".SH SEE ALSO\n.BR stap-unwind (1),\n.BR stapprobes (3stap),\n.BR stapfuncs (3stap)\n") > f
	close(f)
}

/^\/\*\*/ {
	incomment = 1
	name = summary = cur = ""
	nargs = nsecs = 0
	delete text
	next
}

incomment && /^ \*\// {
	incomment = 0
	if (name != "")
		wantsig = 1
	next
}

incomment {
	line = $0
	sub(/^ \* ?/, "", line)
	sub(/[ \t]+$/, "", line)
	if (line ~ /^sfunction [A-Za-z_0-9]+ - /) {
		name = line
		sub(/^sfunction /, "", name)
		sub(/ - .*$/, "", name)
		summary = line
		sub(/^sfunction [A-Za-z_0-9]+ - /, "", summary)
		cur = ""
	} else if (name != "" && line ~ /^@[A-Za-z_0-9]+:/) {
		args[++nargs] = substr(line, 2, index(line, ":") - 2)
		cur = "@" args[nargs]
		text[cur] = ""
		if (substr(line, index(line, ":") + 2) != "")
			add(substr(line, index(line, ":") + 2))
	} else if (name != "" && line ~ /^[A-Z][a-z]+:( |$)/) {
		secs[++nsecs] = substr(line, 1, index(line, ":") - 1)
		cur = secs[nsecs]
		text[cur] = ""
		if (substr(line, index(line, ":") + 2) != "")
			add(substr(line, index(line, ":") + 2))
	} else {
		add(line)
	}
	next
}

wantsig && /^function / {
	sig = $0
	sub(/^function /, "", sig)
	sub(/[ \t]*%?\{.*$/, "", sig)
	if (sig !~ "^" name "[: (]")
		fail("the comment of " name " is followed by function " sig)
	write_page(sig)
	wantsig = 0
	next
}

wantsig && !/^[ \t]*$/ && !/^\/\// {
	fail("the comment of " name " is not followed by its function")
}

END {
	if (!failed && wantsig)
		fail("the comment of " name " is not followed by its function")
}
